/** Renders tokens as text; `previous` are the tokens just before them (for leading spaces). */
export type Detokenize = (tokens: readonly number[], previous: readonly number[]) => string;

const REPLACEMENT = '\uFFFD';
/** Tokens of context the detokenizer gets (node-llama-cpp's own `maxRecentDetokenizerTokens`). */
const CONTEXT_TOKENS = 3;
/** A UTF-8 character is at most 4 bytes: after that many held tokens the U+FFFD is real. */
const MAX_HELD_TOKENS = 4;

/**
 * Token-to-text for a stream: a character that UTF-8 spreads over several byte tokens renders as
 * U+FFFD until its last byte arrives, so tokens whose text ends in U+FFFD are held and rendered
 * again with the next one. A token that renders to a U+FFFD of its own (invalid bytes, which a
 * random model emits) is let go once a character could no longer be incomplete.
 */
export class TokenText {
  private held: number[] = [];
  private readonly previous: number[];

  constructor(
    private readonly detokenize: Detokenize,
    promptTail: readonly number[] = [],
  ) {
    this.previous = promptTail.slice(-CONTEXT_TOKENS);
  }

  /** The text the token completes: '' while it may be the first bytes of a character. */
  push(token: number, complete = false): string {
    this.held.push(token);
    const text = this.detokenize(this.held, this.previous);
    if (!complete && text.endsWith(REPLACEMENT) && this.held.length < MAX_HELD_TOKENS) return '';
    return this.release(text);
  }

  /** The text of tokens still held at the end of the reply. */
  flush(): string {
    return this.held.length === 0 ? '' : this.release(this.detokenize(this.held, this.previous));
  }

  private release(text: string): string {
    this.previous.push(...this.held);
    this.previous.splice(0, Math.max(0, this.previous.length - CONTEXT_TOKENS));
    this.held = [];
    return text;
  }
}
