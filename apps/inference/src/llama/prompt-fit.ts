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
 * The most characters one token is taken to cover, for a bound before anything is tokenized
 * (tokenizing runs on the worker's main thread: 15 MB took 9 s). Text averages 3 to 4 characters
 * a token; 32 leaves room for long whitespace and punctuation runs.
 */
export const MAX_CHARS_PER_TOKEN = 32;

/**
 * Makes sure the prompt leaves room for a reply. Past the context's end llama.cpp would shift
 * the context and silently drop history, so a prompt that does not fit is a typed error with
 * the numbers, unless the caller asked for `drop-oldest`: then the oldest non-system messages
 * go (the last message always stays) until it fits. A prompt of more characters than the
 * context could hold at MAX_CHARS_PER_TOKEN is cut or refused before it is rendered, and
 * `drop-oldest` drops as many messages as the measured tokens a character say it must before it
 * measures again: a long history is rendered a few times, not once per dropped message.
 */
export function fitPrompt<T>(
  messages: readonly ChatMessage[],
  contextSize: number,
  overflow: 'error' | 'drop-oldest',
  measure: (messages: ChatMessage[]) => { rendered: T; tokens: number },
): FittedPrompt<T> {
  const current = [...messages];
  let dropped = 0;
  let chars = promptChars(current);
  /** Drops the oldest droppable messages until `freeChars` characters are gone (at least one step); false when none is left. */
  const dropUntilFreed = (freeChars: number): boolean => {
    let freed = 0;
    do {
      const span = oldestDroppable(current);
      if (!span) return false;
      const gone = current.splice(span.start, span.end - span.start);
      const goneChars = gone.reduce((sum, m) => sum + messageChars(m), 0);
      freed += goneChars;
      chars -= goneChars;
      dropped += gone.length;
    } while (freed < freeChars);
    return true;
  };
  const charBudget = contextSize * MAX_CHARS_PER_TOKEN;
  if (chars > charBudget && overflow === 'drop-oldest') dropUntilFreed(chars - charBudget);
  assertPromptChars(chars, contextSize, dropped);
  for (;;) {
    const { rendered, tokens } = measure(current);
    const promptTokens = tokens + PROMPT_MARGIN_TOKENS;
    const room = contextSize - promptTokens;
    if (room > 0) return { messages: current, rendered, promptTokens: tokens, room, droppedMessages: dropped };
    const charsPerToken = chars / Math.max(tokens, 1);
    if (overflow !== 'drop-oldest' || !dropUntilFreed(Math.ceil((1 - room) * charsPerToken))) {
      throw new AppError(
        ErrorCode.ContextLengthExceeded,
        `The prompt needs about ${promptTokens} tokens but the model's context holds ${contextSize}`,
        { promptTokens, contextSize, droppedMessages: dropped },
      );
    }
  }
}

/** Refuses a prompt of more characters than the context could hold, before anything tokenizes it. */
export function assertPromptChars(chars: number, contextSize: number, droppedMessages = 0): void {
  if (chars <= contextSize * MAX_CHARS_PER_TOKEN) return;
  throw new AppError(
    ErrorCode.ContextLengthExceeded,
    `The prompt holds ${chars} characters, more than the model's context of ${contextSize} tokens can hold (at most ${MAX_CHARS_PER_TOKEN} characters a token)`,
    { promptChars: chars, contextSize, droppedMessages },
  );
}

/** Characters the messages bring to the prompt. */
export function promptChars(messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + messageChars(m), 0);
}

/** The oldest non-system message and the tool results that answered it, as `[start, end)`. */
function oldestDroppable(messages: readonly ChatMessage[]): { start: number; end: number } | undefined {
  const start = messages.findIndex((m, i) => m.role !== 'system' && i < messages.length - 1);
  if (start < 0) return undefined;
  let end = start + 1;
  while (end < messages.length - 1 && messages[end]?.role === 'tool') end++;
  return { start, end };
}

/** Characters a message brings to the prompt, its tool calls' arguments included. */
function messageChars(message: ChatMessage): number {
  return message.content.length + (message.role === 'assistant' && message.toolCalls ? JSON.stringify(message.toolCalls).length : 0);
}

/** Length of the shared prefix: the tokens a sequence already holds for the new prompt. */
export function commonPrefixLength(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
