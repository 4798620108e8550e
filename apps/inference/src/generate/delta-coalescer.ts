/**
 * Joins a generation's text deltas into at most one message per `intervalMs`: the first delta
 * goes out at once (time to first token is untouched), later ones wait until `intervalMs` has
 * passed since the last send. Each message costs a NATS publish, a socket write, the NATS
 * server's routing, and on the gateway a Redis append and an SSE event; per token that is most
 * of what the worker adds to llama.cpp's own time. `flush` sends what is held (before the
 * generation's result, or on its error); `intervalMs` 0 sends every delta as it comes.
 */
export class DeltaCoalescer {
  private held = '';
  private lastSentAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly send: (text: string) => void,
  ) {}

  push(text: string): void {
    this.held += text;
    if (this.timer) return;
    const wait = this.lastSentAt + this.intervalMs - performance.now();
    if (wait <= 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.held) return;
    const text = this.held;
    this.held = '';
    this.lastSentAt = performance.now();
    this.send(text);
  }
}
