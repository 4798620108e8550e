import type { GenerateChunk, ModelLoadingChunk } from '@weft/contracts';
import type { Subscriber } from 'rxjs';

/**
 * One running generation and everyone who asked for it. A gateway that lost sight of this
 * worker (a missed heartbeat, a stalled loop) retries the same request id; the retry joins the
 * generation already running instead of failing or starting it twice: it first gets the text
 * generated so far as one delta, then what follows, and the same `done`.
 */
export class SharedGeneration {
  private text = '';
  private readonly subscribers = new Set<Subscriber<GenerateChunk>>();

  constructor(
    /** Called when the last subscriber leaves before the end: nobody wants the rest. */
    private readonly abandon: () => void,
  ) {}

  /** Adds a subscriber; the returned teardown removes it. */
  attach(subscriber: Subscriber<GenerateChunk>): () => void {
    if (this.text) subscriber.next({ type: 'delta', text: this.text });
    this.subscribers.add(subscriber);
    return () => {
      if (!this.subscribers.delete(subscriber)) return;
      if (this.subscribers.size === 0) this.abandon();
    };
  }

  get attached(): number {
    return this.subscribers.size;
  }

  delta(text: string): void {
    this.text += text;
    for (const subscriber of this.subscribers) subscriber.next({ type: 'delta', text });
  }

  /** The model is still loading: heard by whoever is attached now (a later retry hears the next report). */
  loading(chunk: ModelLoadingChunk): void {
    for (const subscriber of this.subscribers) subscriber.next(chunk);
  }

  finish(chunk: GenerateChunk): void {
    for (const subscriber of this.take()) {
      subscriber.next(chunk);
      subscriber.complete();
    }
  }

  fail(error: unknown): void {
    for (const subscriber of this.take()) subscriber.error(error);
  }

  /** The subscribers, forgotten first so that their teardowns do not count as leaving. */
  private take(): Subscriber<GenerateChunk>[] {
    const all = [...this.subscribers];
    this.subscribers.clear();
    return all;
  }
}
