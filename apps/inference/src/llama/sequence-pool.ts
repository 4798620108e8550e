import { AppError, ErrorCode } from '@weft/contracts';

interface Slot<S> {
  sequence: S;
  /** The session whose tokens this sequence still holds, so its next turn reuses the KV cache. */
  sessionId?: string;
  busy: boolean;
  /** Tick of the last release: the smallest is the least recently used. */
  lastUsed: number;
}

interface Waiter<S> {
  sessionId?: string;
  resolve: (lease: SequenceLease<S>) => void;
}

export interface SequenceLease<S> {
  sequence: S;
  /** The sequence already holds this session's earlier tokens. */
  reused: boolean;
  /** Another session whose cache this sequence held and which the caller is about to overwrite. */
  evictedSessionId?: string;
  release: () => void;
}

export interface PoolStats {
  total: number;
  free: number;
  queued: number;
  maxQueue: number;
  /** Sessions with a cache in a sequence, most recently used first. */
  sessions: string[];
}

/**
 * Hands out a context's sequences one generation at a time. A session gets back the sequence
 * holding its earlier turns when that one is free; otherwise an empty sequence, otherwise the
 * least recently used one (evicting that session's cache). Callers beyond the pool wait in
 * arrival order, at most `maxQueue` of them; the next one is refused with INFERENCE.BUSY.
 */
export class SequencePool<S> {
  private readonly slots: Slot<S>[];
  private readonly waiters: Waiter<S>[] = [];
  private tick = 0;

  constructor(
    sequences: readonly S[],
    private readonly maxQueue = Number.POSITIVE_INFINITY,
  ) {
    this.slots = sequences.map((sequence) => ({ sequence, busy: false, lastUsed: 0 }));
  }

  get waiting(): number {
    return this.waiters.length;
  }

  stats(): PoolStats {
    const sessions = this.slots
      .filter((s): s is Slot<S> & { sessionId: string } => s.sessionId !== undefined)
      .sort((a, b) => b.lastUsed - a.lastUsed)
      .map((s) => s.sessionId);
    return {
      total: this.slots.length,
      free: this.slots.filter((s) => !s.busy).length,
      queued: this.waiters.length,
      maxQueue: Number.isFinite(this.maxQueue) ? this.maxQueue : 0,
      sessions: [...new Set(sessions)],
    };
  }

  /** Whether a free sequence holds this session's cache right now. */
  holds(sessionId: string): boolean {
    return this.slots.some((s) => s.sessionId === sessionId);
  }

  acquire(sessionId?: string, signal?: AbortSignal): Promise<SequenceLease<S>> {
    signal?.throwIfAborted();
    const lease = this.tryLease(sessionId);
    if (lease) return Promise.resolve(lease);
    if (this.waiters.length >= this.maxQueue) {
      return Promise.reject(
        new AppError(
          ErrorCode.InferenceBusy,
          `All ${this.slots.length} sequences are busy and ${this.waiters.length} requests already wait`,
          { sequences: this.slots.length, queued: this.waiters.length, maxQueue: this.maxQueue },
          true,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter<S> = { sessionId, resolve };
      this.waiters.push(waiter);
      signal?.addEventListener(
        'abort',
        () => {
          const index = this.waiters.indexOf(waiter);
          if (index < 0) return;
          this.waiters.splice(index, 1);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  private tryLease(sessionId?: string): SequenceLease<S> | undefined {
    const idle = this.slots.filter((s) => !s.busy);
    if (idle.length === 0) return undefined;
    const mostRecentFirst = [...idle].sort((a, b) => b.lastUsed - a.lastUsed);
    const own = sessionId === undefined ? undefined : mostRecentFirst.find((s) => s.sessionId === sessionId);
    const slot = own ?? idle.find((s) => s.sessionId === undefined) ?? mostRecentFirst.at(-1);
    if (!slot) return undefined;
    const evictedSessionId = own ? undefined : slot.sessionId;
    slot.busy = true;
    slot.sessionId = sessionId;
    let released = false;
    return {
      sequence: slot.sequence,
      reused: own !== undefined,
      evictedSessionId,
      release: () => {
        if (released) return;
        released = true;
        slot.busy = false;
        slot.lastUsed = ++this.tick;
        this.dispatch();
      },
    };
  }

  private dispatch(): void {
    while (this.waiters.length > 0) {
      const next = this.waiters[0];
      const lease = next && this.tryLease(next.sessionId);
      if (!next || !lease) return;
      this.waiters.shift();
      next.resolve(lease);
    }
  }
}
