interface Slot<S> {
  sequence: S;
  /** The session whose tokens this sequence still holds, so its next turn reuses the KV cache. */
  sessionId?: string;
}

interface Waiter<S> {
  sessionId?: string;
  resolve: (slot: Slot<S>) => void;
}

export interface SequenceLease<S> {
  sequence: S;
  release: () => void;
}

/**
 * Hands out a context's sequences one generation at a time; callers beyond the pool wait in
 * arrival order. A free sequence that last served the same session is preferred.
 */
export class SequencePool<S> {
  private readonly idle: Slot<S>[];
  private readonly waiters: Waiter<S>[] = [];

  constructor(sequences: readonly S[]) {
    this.idle = sequences.map((sequence) => ({ sequence }));
  }

  get waiting(): number {
    return this.waiters.length;
  }

  acquire(sessionId?: string, signal?: AbortSignal): Promise<SequenceLease<S>> {
    signal?.throwIfAborted();
    const slot = this.takeIdle(sessionId);
    if (slot) return Promise.resolve(this.lease(slot, sessionId));
    return new Promise((resolve, reject) => {
      const waiter: Waiter<S> = { sessionId, resolve: (s) => resolve(this.lease(s, sessionId)) };
      this.waiters.push(waiter);
      signal?.addEventListener(
        'abort',
        () => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  private takeIdle(sessionId?: string): Slot<S> | undefined {
    const own = sessionId === undefined ? -1 : this.idle.findIndex((s) => s.sessionId === sessionId);
    // Otherwise the least recently released one: the oldest cache is the cheapest to lose.
    const [slot] = this.idle.splice(own >= 0 ? own : 0, 1);
    return slot;
  }

  private lease(slot: Slot<S>, sessionId?: string): SequenceLease<S> {
    slot.sessionId = sessionId;
    let released = false;
    return {
      sequence: slot.sequence,
      release: () => {
        if (released) return;
        released = true;
        const next = this.waiters.shift();
        if (next) next.resolve(slot);
        else this.idle.push(slot);
      },
    };
  }
}
