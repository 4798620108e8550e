import { CONNECT_CLIENTS } from './clients';

const API_NAMES = { anthropic: 'Anthropic Messages', chat: 'OpenAI Chat Completions', responses: 'OpenAI Responses', gemini: 'Gemini (`/gemini`)' } as const;

/** The client table of docs/agent-clients.md, as `weft connect` knows the clients (a test keeps the page in step). */
export function connectClientsTable(): string {
  const rows = CONNECT_CLIENTS.map((client) => `| \`weft connect ${client.id}\` | ${client.name} | ${API_NAMES[client.api]} | ${client.summary} | ${client.contextSetting} |`);
  return ['| command | client | API | what it writes | context window |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}
