import { AppError, ErrorCode } from '@weft/contracts';

interface Slot<S> {
  sequence: S;
  /** Kept for a user with no generation running here (see `express`). */
  express: boolean;
  /** The session whose tokens this sequence still holds, so its next turn reuses the KV cache. */
  sessionId?: string;
  /** The user whose tokens it holds: absent while it has held nobody's. */
  userId?: string;
  busy: boolean;
  /** Tick of the last release: the smallest is the least recently used. */
  lastUsed: number;
}

interface Waiter<S> {
  sessionId?: string;
  userId: string;
  /** Virtual finish time: waiters are served smallest first, ties in arrival order. */
  tag: number;
  resolve: (lease: SequenceLease<S>) => void;
}

/** Fair-queue state of a user with requests waiting; dropped when their last one leaves. */
interface UserQueue {
  lastTag: number;
  waiting: number;
}

/** Whose request this is; a heavier user gets proportionally more turns while others wait. */
export interface PoolUser {
  id: string;
  /** 1 when absent. */
  weight?: number;
}

export interface AcquireOptions {
  sessionId?: string;
  /** Absent: the request shares one anonymous user's turns. */
  user?: PoolUser;
  signal?: AbortSignal;
}

/** The contract requires a non-empty user id, so the empty one cannot collide. */
const ANONYMOUS: PoolUser = { id: '' };

export interface SequenceLease<S> {
  sequence: S;
  /** The sequence already holds this session's earlier tokens. */
  reused: boolean;
  /** Another session whose cache this sequence held and which the caller is about to overwrite. */
  evictedSessionId?: string;
  /**
   * The sequence holds another user's tokens. A prompt that shares a prefix with them would
   * reuse it, and `cachedTokens` (or how soon the reply starts) would tell this user how much
   * of the other's prompt they guessed: the caller clears it first unless the model shares
   * caches across users.
   */
  foreign: boolean;
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
 * holding its earlier turns when that one is free; otherwise one that keeps the busy sequences
 * consecutive, preferring an empty one, then the least recently used (`slotToTake`, evicting that
 * session's cache). Callers beyond the pool wait, at most `maxQueue` of them (the next one is
 * refused with INFERENCE.BUSY), and are served in weighted fair order across users, then by
 * arrival (self-clocked fair queuing): each waiter's tag is its user's previous tag, or the
 * virtual time if later, plus 1/weight, and the smallest tag is served first, so a user with
 * sixteen agents waiting cannot keep a user with one behind all sixteen.
 */
export class SequencePool<S> {
  private readonly slots: Slot<S>[];
  /** In arrival order, so the first of equal tags is the earliest. */
  private readonly waiters: Waiter<S>[] = [];
  private readonly users = new Map<string, UserQueue>();
  /** Leases held, by user: who may take an express sequence. */
  private readonly running = new Map<string, number>();
  /** The tag of the waiter served last. A user with nobody waiting starts here: idle time earns no credit. */
  private virtualNow = 0;
  private tick = 0;

  /**
   * The last `express` sequences go only to a user with no generation running here: when one
   * user's agents hold every other sequence, another user's request starts at once (decoded in
   * the same batch) instead of waiting for a reply to finish. Each costs a KV cache's memory.
   */
  constructor(
    sequences: readonly S[],
    private readonly maxQueue = Number.POSITIVE_INFINITY,
    express = 0,
    /** The caller saves evicted sessions' KV states: evicting a recent one costs a save and a load, not its whole prompt (`slotToTake`). */
    private readonly evictedSessionsAreSaved = false,
  ) {
    const firstExpress = sequences.length - Math.min(express, sequences.length - 1);
    this.slots = sequences.map((sequence, i) => ({ sequence, express: i >= firstExpress, busy: false, lastUsed: 0 }));
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

  /** The sessions whose tokens the sequences hold, with their sequences (to save them before an unload). */
  heldSessions(): { sessionId: string; sequence: S }[] {
    return this.slots.flatMap((s) => (s.sessionId === undefined ? [] : [{ sessionId: s.sessionId, sequence: s.sequence }]));
  }

  /** Whether a free sequence holds this session's cache right now. */
  holds(sessionId: string): boolean {
    return this.slots.some((s) => s.sessionId === sessionId);
  }

  acquire({ sessionId, user = ANONYMOUS, signal }: AcquireOptions = {}): Promise<SequenceLease<S>> {
    signal?.throwIfAborted();
    const lease = this.tryLease(sessionId, user.id);
    if (lease) return Promise.resolve(lease);
    if (this.waiters.length >= this.maxQueue) {
      return Promise.reject(
        new AppError(
          ErrorCode.InferenceBusy,
          `All ${this.slots.length} sequences are busy and ${this.waiters.length} requests already wait`,
          {
            sequences: this.slots.length,
            queued: this.waiters.length,
            maxQueue: this.maxQueue,
            userQueued: this.users.get(user.id)?.waiting ?? 0,
          },
          true,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const waiter = this.enqueue(sessionId, user, resolve);
      signal?.addEventListener(
        'abort',
        () => {
          if (!this.waiters.includes(waiter)) return;
          this.remove(waiter);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  private enqueue(sessionId: string | undefined, user: PoolUser, resolve: Waiter<S>['resolve']): Waiter<S> {
    const queue = this.users.get(user.id) ?? { lastTag: 0, waiting: 0 };
    queue.lastTag = Math.max(this.virtualNow, queue.lastTag) + 1 / (user.weight ?? 1);
    queue.waiting++;
    this.users.set(user.id, queue);
    const waiter: Waiter<S> = { sessionId, userId: user.id, tag: queue.lastTag, resolve };
    this.waiters.push(waiter);
    return waiter;
  }

  /**
   * A user with nobody waiting is forgotten: after a serve their tag is at most the virtual time,
   * and an aborted request, which never held a sequence, should not count against them. So the
   * map holds only users with waiters and stays within `maxQueue`.
   */
  private remove(waiter: Waiter<S>): void {
    this.waiters.splice(this.waiters.indexOf(waiter), 1);
    const queue = this.users.get(waiter.userId);
    if (queue && --queue.waiting === 0) this.users.delete(waiter.userId);
  }

  /**
   * Which sequence a new session takes. node-llama-cpp gives each sequence its own KV stream,
   * and llama.cpp decodes a batch's sequences in one pass over the weights only while their ids
   * run consecutively: busy sequences 2, 3, 4, 5 are one pass per token, 6, 7, 0, 1 are two, and
   * every pass costs about as much as a whole single-stream token. So, fewest passes first; then
   * an empty sequence; then one holding the same user's tokens (their system prompt and tools
   * are reused, where another user's would be cleared); then the least recently used. The
   * candidates are the empty sequences and the older half of the idle ones, which leaves an
   * agent's session a few seconds between its turns. Where evicted sessions are saved, a more
   * recent session is evicted when that saves a pass: its next turn loads its KV state back,
   * while the extra pass would slow every token of every running generation. Where they are not
   * saved, its next turn would evaluate its whole conversation again, so it is left alone.
   */
  private slotToTake(mostRecentFirst: Slot<S>[], userId: string): Slot<S> | undefined {
    const half = Math.floor(mostRecentFirst.length / 2);
    // Ties (never used) in id order.
    const leastRecentFirst = (slots: Slot<S>[]) => [...slots].sort((a, b) => a.lastUsed - b.lastUsed);
    const older = leastRecentFirst(mostRecentFirst.slice(half));
    const empty = mostRecentFirst.filter((s) => s.sessionId === undefined && !older.includes(s));
    const passes = new Map(mostRecentFirst.map((s) => [s, this.passesWith(s)]));
    const best = (slots: Slot<S>[]) =>
      // Stable sort: among equals, the least recently used.
      slots.sort(
        (a, b) =>
          passes.get(a)! - passes.get(b)! ||
          Number(b.sessionId === undefined) - Number(a.sessionId === undefined) ||
          Number(b.userId === userId) - Number(a.userId === userId),
      )[0];
    const choice = best([...leastRecentFirst(empty), ...older]);
    if (!this.evictedSessionsAreSaved) return choice;
    const recent = best(leastRecentFirst(mostRecentFirst.slice(0, half)).filter((s) => !empty.includes(s)));
    return recent && (!choice || passes.get(recent)! < passes.get(choice)!) ? recent : choice;
  }

  /** Runs of consecutive busy ids, were this sequence busy too: llama.cpp's passes per decoded token. */
  private passesWith(taken: Slot<S>): number {
    const busy = (i: number) => this.slots[i]?.busy === true || this.slots[i] === taken;
    return this.slots.filter((_, i) => busy(i) && !busy(i - 1)).length;
  }

  private tryLease(sessionId: string | undefined, userId: string): SequenceLease<S> | undefined {
    const regular = this.slots.filter((s) => !s.busy && !s.express);
    const idle = regular.length > 0 || (this.running.get(userId) ?? 0) > 0 ? regular : this.slots.filter((s) => !s.busy);
    if (idle.length === 0) return undefined;
    const mostRecentFirst = [...idle].sort((a, b) => b.lastUsed - a.lastUsed);
    const own = sessionId === undefined ? undefined : mostRecentFirst.find((s) => s.sessionId === sessionId);
    const slot = own ?? this.slotToTake(mostRecentFirst, userId);
    if (!slot) return undefined;
    const evictedSessionId = own ? undefined : slot.sessionId;
    const foreign = slot.userId !== undefined && slot.userId !== userId;
    slot.busy = true;
    slot.sessionId = sessionId;
    slot.userId = userId;
    this.running.set(userId, (this.running.get(userId) ?? 0) + 1);
    let released = false;
    return {
      sequence: slot.sequence,
      reused: own !== undefined,
      evictedSessionId,
      foreign,
      release: () => {
        if (released) return;
        released = true;
        slot.busy = false;
        const left = (this.running.get(userId) ?? 1) - 1;
        if (left > 0) this.running.set(userId, left);
        else this.running.delete(userId);
        slot.lastUsed = ++this.tick;
        this.dispatch();
      },
    };
  }

  /** Serves waiters in fair order; one that only an express sequence could take is passed over. */
  private dispatch(): void {
    for (;;) {
      const fairOrder = [...this.waiters].sort((a, b) => a.tag - b.tag);
      const served = fairOrder.some((waiter) => {
        const lease = this.tryLease(waiter.sessionId, waiter.userId);
        if (!lease) return false;
        this.remove(waiter);
        this.virtualNow = waiter.tag;
        waiter.resolve(lease);
        return true;
      });
      if (!served) return;
    }
  }
}
