/**
 * Joins a generation's text deltas into about one message per `intervalMs`: the first delta
 * goes out at once (time to first token is untouched), later ones wait until `intervalMs` has
 * passed since the last send. Each message costs a NATS publish, a socket write, the NATS
 * server's routing, and on the gateway a Redis append and an SSE event; per token that is most
 * of what the worker adds to llama.cpp's own time. `flush` sends what is held (before the
 * generation's result, or on its error); `intervalMs` 0 sends every delta as it comes.
 *
 * Held deltas wait for a clock shared by every generation of the process with the same interval
 * (`FlushClock`), not a timer each: the generations' messages then go out in the same turn of
 * the event loop, which the NATS client writes to its socket at once. With eight generations on
 * a 2-core CPU, eight timers woke the worker, the NATS server and the gateway eight times as
 * often while llama.cpp's threads decoded, and those wake-ups took the cores from the decode.
 */
export class DeltaCoalescer {
  private held = '';
  private lastSentAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly intervalMs: number,
    private readonly send: (text: string) => void,
  ) {}

  push(text: string): void {
    this.held += text;
    const dueAt = this.lastSentAt + this.intervalMs;
    if (performance.now() >= dueAt) this.flush();
    else FlushClock.for(this.intervalMs).wait(this, dueAt);
  }

  flush(): void {
    FlushClock.for(this.intervalMs).forget(this);
    if (!this.held) return;
    const text = this.held;
    this.held = '';
    this.lastSentAt = performance.now();
    this.send(text);
  }
}

/**
 * One timer per interval for every coalescer waiting on it, set for the earliest of their due
 * times; when it fires, all of them send, so after one tick the generations keep the same beat.
 * It runs only while one waits.
 */
class FlushClock {
  private static readonly clocks = new Map<number, FlushClock>();
  private readonly waiting = new Set<DeltaCoalescer>();
  private timer: NodeJS.Timeout | undefined;
  private dueAt = Number.POSITIVE_INFINITY;

  static for(intervalMs: number): FlushClock {
    let clock = FlushClock.clocks.get(intervalMs);
    if (!clock) FlushClock.clocks.set(intervalMs, (clock = new FlushClock()));
    return clock;
  }

  wait(coalescer: DeltaCoalescer, dueAt: number): void {
    this.waiting.add(coalescer);
    if (this.timer && dueAt >= this.dueAt) return;
    clearTimeout(this.timer);
    this.dueAt = dueAt;
    this.timer = setTimeout(() => this.tick(), Math.max(0, dueAt - performance.now()));
  }

  forget(coalescer: DeltaCoalescer): void {
    if (!this.waiting.delete(coalescer) || this.waiting.size > 0) return;
    this.stop();
  }

  private stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.dueAt = Number.POSITIVE_INFINITY;
  }

  private tick(): void {
    this.stop();
    const due = [...this.waiting];
    this.waiting.clear();
    for (const coalescer of due) coalescer.flush();
  }
}
