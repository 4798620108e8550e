import type { ChatMessage, ToolDefinition } from '@weft/contracts';
import type { ContextState } from '../agent-core/ports';

/**
 * Token counts here are estimates: about four characters a token for English and code. The
 * worker's own count of the last prompt corrects them where one is known (`ContextState.measured`),
 * so only the messages added since are guessed.
 */
export const CHARS_PER_TOKEN = 4;
/** Role markers and separators a chat template adds around each message. */
const MESSAGE_OVERHEAD_CHARS = 16;

export function estimateTokens(messages: readonly ChatMessage[], tools?: readonly ToolDefinition[]): number {
  let chars = tools && tools.length > 0 ? JSON.stringify(tools).length : 0;
  for (const message of messages) chars += messageChars(message);
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

function messageChars(message: ChatMessage): number {
  const calls = message.role === 'assistant' && message.toolCalls ? JSON.stringify(message.toolCalls).length : 0;
  return MESSAGE_OVERHEAD_CHARS + message.content.length + calls;
}

export function systemWithSummary(systemPrompt: string, summary: string | null): string {
  if (!summary) return systemPrompt;
  return `${systemPrompt}\n\n# Summary of the earlier conversation\n\nOlder messages of this session were replaced by this summary to fit the model's context:\n\n${summary.trim()}`;
}

/** The prompt of one generation: the system prompt (with the summary), then the messages it does not cover. */
export function modelView(systemPrompt: string, history: readonly ChatMessage[], state: ContextState | undefined): ChatMessage[] {
  const system: ChatMessage = { role: 'system', content: systemWithSummary(systemPrompt, state?.summary ?? null) };
  return [system, ...history.slice(state?.summarisedMessages ?? 0)];
}

/** The prompt's size: the worker's count of the last prompt plus the messages since, else all estimated. */
export function promptEstimate(
  view: readonly ChatMessage[],
  history: readonly ChatMessage[],
  state: ContextState | undefined,
  tools?: readonly ToolDefinition[],
): number {
  const measured = state?.measured;
  if (measured && measured.messages <= history.length) {
    return measured.promptTokens + estimateTokens(history.slice(measured.messages));
  }
  return estimateTokens(view, tools);
}

/**
 * The fixed part of the prompt (system prompt and tool schemas), without the summary: from the
 * worker's count where there is one, since chat templates render tool schemas at very different
 * lengths.
 */
export function baseEstimate(
  systemPrompt: string,
  history: readonly ChatMessage[],
  state: ContextState | undefined,
  tools?: readonly ToolDefinition[],
): number {
  const measured = state?.measured;
  if (measured && measured.messages <= history.length) {
    const sent = history.slice(state.summarisedMessages, measured.messages);
    const summary = state.summary ? Math.ceil(state.summary.length / CHARS_PER_TOKEN) : 0;
    return Math.max(0, measured.promptTokens - estimateTokens(sent) - summary);
  }
  return estimateTokens([{ role: 'system', content: systemPrompt }], tools);
}

/**
 * Where the kept part of the history starts: the earliest message after `from` from which the
 * rest fits in `room` tokens. Whole turns first (a cut at one of the user's messages); failing
 * that, a step inside the current turn. Never at a tool result, which must follow its call.
 */
export function chooseCut(history: readonly ChatMessage[], from: number, room: number): number | undefined {
  const fits = (index: number) => estimateTokens(history.slice(index)) <= room;
  for (let i = from + 1; i < history.length; i++) {
    if (history[i]?.role === 'user' && fits(i)) return i;
  }
  const turnStart = Math.max(from, history.findLastIndex((m) => m.role === 'user'));
  for (let i = turnStart + 1; i < history.length; i++) {
    if (history[i]?.role !== 'tool' && fits(i)) return i;
  }
  return undefined;
}

/**
 * Where the current turn starts (its user message), when older messages are left to summarise:
 * the last resort when no cut fits the budget. Undefined when the current turn is all there is.
 */
export function currentTurnStart(history: readonly ChatMessage[], from: number): number | undefined {
  const start = history.findLastIndex((m) => m.role === 'user');
  return start > from ? start : undefined;
}

/** The messages as plain text for the summariser, each clipped to `maxChars`. */
export function transcriptLines(messages: readonly ChatMessage[], maxChars: number): string[] {
  return messages.map((message) => {
    const line = transcriptLine(message);
    return line.length <= maxChars ? line : `${line.slice(0, maxChars)} […${line.length - maxChars} more characters]`;
  });
}

function transcriptLine(message: ChatMessage): string {
  switch (message.role) {
    case 'system':
      return `System: ${message.content}`;
    case 'user':
      return `User: ${message.content}`;
    case 'assistant': {
      const calls = (message.toolCalls ?? []).map((c) => `${c.name}(${JSON.stringify(c.arguments)})`);
      return `Assistant: ${message.content}${calls.length > 0 ? `\n[called ${calls.join(', ')}]` : ''}`;
    }
    case 'tool':
      return `Result of ${message.name}: ${message.content}`;
  }
}
