import type { Token } from 'node-llama-cpp';
import type { GenerationDetector } from './loop-internals';

const NO_TOKEN = -1 as Token;

/**
 * The chat template's "ignore start text" (LlamaChat's `ignoreStartText`): text the reply may begin
 * with that it must not keep, such as the space a Jinja template renders after the assistant's
 * header. LlamaChat matches it with its stop detector at the start of the reply's first text; so
 * does this, with the same detector (whose trigger tree keeps the shortest of triggers that share
 * a start: for a Jinja template's spaces and tabs, one space or one tab). Text is held while a
 * longer trigger may still match, then released without the longest one that did.
 */
export class StartText {
  private held = '';
  private matched = 0;
  private done: boolean;

  constructor(private readonly detector: GenerationDetector | undefined) {
    this.done = detector === undefined;
  }

  /** What of the reply's released text may be streamed now. */
  take(release: string): string {
    if (this.done || !release) return release;
    const detector = this.detector as GenerationDetector;
    // The detector keeps a check alive through a step without tokens; this text is matched as
    // text only, so a token that is in no trigger goes with it.
    detector.recordGeneration({ text: release, tokens: [NO_TOKEN], startNewChecks: this.held === '', triggerMustStartWithGeneration: true });
    this.held += release;
    for (const { stopTrigger } of detector.hasTriggeredStops ? detector.getTriggeredStops() : []) {
      this.matched = Math.max(this.matched, stopTrigger.join('').length);
    }
    return detector.hasInProgressStops ? '' : this.flush();
  }

  /** The held text without what matched; afterwards everything passes. */
  flush(): string {
    if (this.done) return '';
    this.done = true;
    return this.held.slice(this.matched);
  }

  /** The text that was left out of the reply (LlamaChat keeps its tokens in the context before a call). */
  get ignored(): string {
    return this.held.slice(0, this.matched);
  }
}
