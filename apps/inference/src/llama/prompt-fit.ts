import { AppError, ErrorCode, type ChatMessage } from '@weft/contracts';

/** Covers the few tokens the generation adds after the rendered history (the reply's prefix). */
export const PROMPT_MARGIN_TOKENS = 16;

export interface FittedPrompt<T> {
  messages: ChatMessage[];
  rendered: T;
  promptTokens: number;
  /** Tokens left for the reply. */
  room: number;
  droppedMessages: number;
}

/**
 * Makes sure the prompt leaves room for a reply. Past the context's end llama.cpp would shift
 * the context and silently drop history, so a prompt that does not fit is a typed error with
 * the numbers, unless the caller asked for `drop-oldest`: then the oldest non-system messages
 * go, one at a time, until it fits (the last message always stays).
 */
export function fitPrompt<T>(
  messages: readonly ChatMessage[],
  contextSize: number,
  overflow: 'error' | 'drop-oldest',
  measure: (messages: ChatMessage[]) => { rendered: T; tokens: number },
): FittedPrompt<T> {
  let current = [...messages];
  let dropped = 0;
  for (;;) {
    const { rendered, tokens } = measure(current);
    const promptTokens = tokens + PROMPT_MARGIN_TOKENS;
    const room = contextSize - promptTokens;
    if (room > 0) return { messages: current, rendered, promptTokens: tokens, room, droppedMessages: dropped };
    const next = overflow === 'drop-oldest' ? dropOldest(current) : undefined;
    if (!next) {
      throw new AppError(
        ErrorCode.ContextLengthExceeded,
        `The prompt needs about ${promptTokens} tokens but the model's context holds ${contextSize}`,
        { promptTokens, contextSize, droppedMessages: dropped },
      );
    }
    dropped += current.length - next.length;
    current = next;
  }
}

/** Removes the oldest non-system message and the tool results that answered it. */
function dropOldest(messages: ChatMessage[]): ChatMessage[] | undefined {
  const first = messages.findIndex((m, i) => m.role !== 'system' && i < messages.length - 1);
  if (first < 0) return undefined;
  let end = first + 1;
  while (end < messages.length - 1 && messages[end]?.role === 'tool') end++;
  return [...messages.slice(0, first), ...messages.slice(end)];
}

/** Length of the shared prefix: the tokens a sequence already holds for the new prompt. */
export function commonPrefixLength(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
