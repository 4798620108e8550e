/** What a token changed: text safe to stream now, and whether a stop string or token was met. */
export interface StopStep {
  /** Text that can no longer become part of a stop string: stream it. */
  release: string;
  /** The reply ends here; `release` is the text before the stop. */
  stopped: boolean;
}

/**
 * Stop strings and stop token sequences over a reply that arrives token by token. A stop string
 * may span tokens ("</" + "end>"), so the text that could still be the start of one is held back
 * until the next token decides; what is released is never taken back. A stop is met at the first
 * place any trigger occurs, and the reply ends before it, as node-llama-cpp's LlamaChat ends it.
 */
export class StopDetector {
  private readonly texts: string[];
  private readonly tokenSequences: number[][];
  /** The reply's text from the first character not yet released. */
  private held = '';
  private readonly recentTokens: number[] = [];
  private readonly keepTokens: number;

  constructor(texts: readonly string[], tokenSequences: readonly (readonly number[])[] = []) {
    this.texts = [...new Set(texts.filter((text) => text.length > 0))];
    this.tokenSequences = tokenSequences.filter((seq) => seq.length > 0).map((seq) => [...seq]);
    this.keepTokens = Math.max(0, ...this.tokenSequences.map((seq) => seq.length));
  }

  /** Adds the text of the tokens just generated (and the tokens themselves, for token stops). */
  push(text: string, tokens: readonly number[] = []): StopStep {
    this.held += text;
    if (this.matchesTokenStop(tokens)) {
      // A stop token sequence renders to text the reply must not keep either (most are special
      // tokens, which render to nothing): drop this step's text with it.
      const release = this.held.slice(0, this.held.length - text.length);
      this.held = '';
      return { release, stopped: true };
    }
    const at = this.firstStop();
    if (at !== undefined) {
      const release = this.held.slice(0, at);
      this.held = '';
      return { release, stopped: true };
    }
    const keep = this.longestStopPrefixSuffix();
    const release = this.held.slice(0, this.held.length - keep);
    this.held = this.held.slice(this.held.length - keep);
    return { release, stopped: false };
  }

  /** The end of the reply without a stop: what was held back is text after all. */
  flush(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }

  private matchesTokenStop(tokens: readonly number[]): boolean {
    if (this.keepTokens === 0) return false;
    for (const token of tokens) {
      this.recentTokens.push(token);
      if (this.recentTokens.length > this.keepTokens) this.recentTokens.shift();
      if (this.tokenSequences.some((seq) => endsWith(this.recentTokens, seq))) return true;
    }
    return false;
  }

  private firstStop(): number | undefined {
    let first: number | undefined;
    for (const stop of this.texts) {
      const at = this.held.indexOf(stop);
      if (at >= 0 && (first === undefined || at < first)) first = at;
    }
    return first;
  }

  /** The length of the longest end of the held text that begins some stop string. */
  private longestStopPrefixSuffix(): number {
    let longest = 0;
    for (const stop of this.texts) {
      for (let length = Math.min(stop.length - 1, this.held.length); length > longest; length--) {
        if (this.held.endsWith(stop.slice(0, length))) {
          longest = length;
          break;
        }
      }
    }
    return longest;
  }
}

function endsWith(tokens: readonly number[], suffix: readonly number[]): boolean {
  if (suffix.length > tokens.length) return false;
  const offset = tokens.length - suffix.length;
  return suffix.every((token, i) => tokens[offset + i] === token);
}
