import type { ToolDefinition } from '@weft/contracts';
import type { InstructionsSummary, Note } from '../agent-core/ports';
import { RUNTIME_NOTE_PREFIX } from '../agent-core/runtime-note';

/** The shared notes that go into a prompt at most, newest kept. */
const MAX_PROMPT_NOTES_CHARS = 8000;

/** Who the model is in this loop: the session's agent, a junior working for a senior, or a subtask. */
export type AgentRole = 'agent' | 'junior' | 'subtask';

const ROLE_LINES: Readonly<Record<AgentRole, string[]>> = {
  agent: [],
  junior: [
    'You are working on a task handed to you by a senior model, which will review your work before the',
    'user sees it. Do the task, check it, then report exactly what you changed and anything you could not do.',
  ],
  subtask: [
    'You are carrying out one subtask of a larger plan. Do only this subtask, then answer with a short',
    'account of what you did and which files you created or changed.',
  ],
};

/**
 * The system message of every generation: who the agent is, which tools it has, then the
 * project's instructions, the user's personal ones, and the workspace's shared notes, in that order.
 */
export function buildSystemPrompt(
  tools: readonly ToolDefinition[],
  instructions?: InstructionsSummary,
  notes: readonly Note[] = [],
  role: AgentRole = 'agent',
  /** MCP servers the session declares that cannot be used this turn, each with its problem. */
  unavailableMcp: readonly string[] = [],
): string {
  const toolLines = tools.map((tool) => `- ${tool.name}: ${tool.description}`);
  const parts = [
    [
      'You are Weft, a coding agent working in a project workspace on behalf of a developer.',
      'All paths are relative to the workspace root. Use the tools to inspect and change the code:',
      ...toolLines,
      'Read files before you change them, make the smallest change that does the job, and check your',
      'work by running the tests or the code when you can. A tool result that starts with an error',
      'code means the call failed: fix the arguments or try another way. AGENT.PERMISSION_DENIED means',
      'the user or their policy refused the call: do not retry it; use the reason given, or ask the user.',
      'When you are done, answer with a short summary of what you did, without calling a tool.',
      ...ROLE_LINES[role],
    ].join('\n'),
  ];
  if (unavailableMcp.length > 0) {
    parts.push(['# MCP servers unavailable this turn (their tools are missing; tell the user if they need them)', '', ...unavailableMcp.map((line) => `- ${line}`)].join('\n'));
  }
  if (instructions?.project) {
    parts.push(`# Project instructions (from ${instructions.project.file})\n\n${instructions.project.content.trim()}`);
  }
  if (instructions?.personal) parts.push(`# Personal instructions of the user\n\n${instructions.personal.trim()}`);
  const shared = notesSection(notes);
  if (shared) parts.push(shared);
  return parts.join('\n\n');
}

/** The newest notes that fit, oldest first; `remember` and "Remember: …" lines add to them. */
function notesSection(notes: readonly Note[]): string | undefined {
  const lines: string[] = [];
  let size = 0;
  for (const note of [...notes].reverse()) {
    const line = `- ${note.text}`;
    if (size + line.length > MAX_PROMPT_NOTES_CHARS) break;
    lines.unshift(line);
    size += line.length;
  }
  if (lines.length === 0) return undefined;
  return ['# Shared notes of this workspace (kept by you, the other models and the user)', '', ...lines].join('\n');
}

export function interruptionNote(message: string): string {
  return [
    `${RUNTIME_NOTE_PREFIX} The turn was interrupted: ${message}`,
    'Do not call any tools. Summarise for the user what you did in this turn, what is still left to do,',
    'and anything they should check.',
  ].join(' ');
}
