/** What a token changed: text safe to stream now, and whether a stop string or token was met. */
export interface StopStep {
  /** Text that can no longer become part of a stop string: stream it. */
  release: string;
  /** The reply's text ends here; `release` is the text before the stop (or before the call). */
  stopped: boolean;
  /** A function call's syntax began (`stopped` is true too): `rest` is this step's text after it. */
  call?: { rest: string };
  /** The stop string that was met (not for a stop token sequence or a call). */
  matched?: string;
}

/** The triggers one detector looks for: strings in the reply's text, and token sequences. */
export interface TriggerSet {
  texts: readonly string[];
  tokenSequences: readonly (readonly number[])[];
}

interface TextTrigger {
  text: string;
  call: boolean;
}

interface TokenTrigger {
  tokens: number[];
  call: boolean;
}

/**
 * Stop strings and stop token sequences over a reply that arrives token by token. A stop string
 * may span tokens ("</" + "end>"), so the text that could still be the start of one is held back
 * until the next token decides; what is released is never taken back. A stop is met at the first
 * place any trigger occurs, and the reply ends before it, as node-llama-cpp's LlamaChat ends it.
 *
 * The start of a function call's syntax (`calls`) is looked for the same way, and wins over a
 * stop met in the same token, as in LlamaChat, which checks for a call before it checks stops.
 * Where two call triggers begin at the same place, the shorter one is met (LlamaChat's trigger
 * tree ends at the first complete trigger along a path).
 */
export class StopDetector {
  private readonly texts: TextTrigger[];
  private readonly tokenSequences: TokenTrigger[];
  /** The reply's text from the first character not yet released. */
  private held = '';
  private readonly recentTokens: number[] = [];
  private readonly keepTokens: number;

  constructor(texts: readonly string[], tokenSequences: readonly (readonly number[])[] = [], calls: TriggerSet = { texts: [], tokenSequences: [] }) {
    const callTexts = [...new Set(calls.texts.filter((text) => text.length > 0))].sort((a, b) => a.length - b.length);
    this.texts = [
      ...callTexts.map((text) => ({ text, call: true })),
      ...[...new Set(texts.filter((text) => text.length > 0))].map((text) => ({ text, call: false })),
    ];
    this.tokenSequences = [
      ...calls.tokenSequences.filter((seq) => seq.length > 0).map((seq) => ({ tokens: [...seq], call: true })),
      ...tokenSequences.filter((seq) => seq.length > 0).map((seq) => ({ tokens: [...seq], call: false })),
    ];
    this.keepTokens = Math.max(0, ...this.tokenSequences.map((seq) => seq.tokens.length));
  }

  /** Adds the text of the tokens just generated (and the tokens themselves, for token stops). */
  push(text: string, tokens: readonly number[] = []): StopStep {
    this.held += text;
    const tokenHit = this.matchTokenTrigger(tokens);
    const textHit = this.firstTextTrigger();
    if (textHit?.call) return this.end(textHit.at, { rest: this.held.slice(textHit.at + textHit.length) });
    if (tokenHit) {
      // A trigger token sequence renders to text the reply must not keep either (most are special
      // tokens, which render to nothing): drop this step's text with it.
      return this.end(this.held.length - text.length, tokenHit.call ? { rest: '' } : undefined);
    }
    if (textHit) return { ...this.end(textHit.at), matched: textHit.text };
    const keep = this.longestTriggerPrefixSuffix();
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

  private end(at: number, call?: { rest: string }): StopStep {
    const release = this.held.slice(0, at);
    this.held = '';
    return call ? { release, stopped: true, call } : { release, stopped: true };
  }

  private matchTokenTrigger(tokens: readonly number[]): TokenTrigger | undefined {
    if (this.keepTokens === 0) return undefined;
    let hit: TokenTrigger | undefined;
    for (const token of tokens) {
      this.recentTokens.push(token);
      if (this.recentTokens.length > this.keepTokens) this.recentTokens.shift();
      for (const trigger of this.tokenSequences) {
        if (endsWith(this.recentTokens, trigger.tokens) && (!hit || (trigger.call && !hit.call))) hit = trigger;
      }
      if (hit) return hit;
    }
    return undefined;
  }

  /** The first call trigger in the held text if any, else the first stop string. */
  private firstTextTrigger(): { at: number; length: number; call: boolean; text: string } | undefined {
    let first: { at: number; length: number; call: boolean; text: string } | undefined;
    for (const { text, call } of this.texts) {
      const at = this.held.indexOf(text);
      if (at < 0) continue;
      if (!first || (call && !first.call) || (call === first.call && at < first.at)) first = { at, length: text.length, call, text };
    }
    return first;
  }

  /** The length of the longest end of the held text that begins some trigger string. */
  private longestTriggerPrefixSuffix(): number {
    let longest = 0;
    for (const { text } of this.texts) {
      for (let length = Math.min(text.length - 1, this.held.length); length > longest; length--) {
        if (this.held.endsWith(text.slice(0, length))) {
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
