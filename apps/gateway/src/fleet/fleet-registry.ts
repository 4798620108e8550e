import { AppError, ErrorCode, type WorkerHeartbeat } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { watchSilence } from './silence-watch';

/** A worker is dropped after this many heartbeat intervals without one. */
export const MISSED_BEATS = 3;
const MIN_TTL_MS = 1_000;

/** Where the fleet is mirrored so a replica that just started knows it before the first beat. */
export interface FleetStore {
  save(heartbeat: WorkerHeartbeat, ttlMs: number): Promise<void>;
  remove(workerId: string): Promise<void>;
  load(): Promise<WorkerHeartbeat[]>;
}

interface Entry {
  heartbeat: WorkerHeartbeat;
  /** Cancels the drop timer. */
  unwatch: () => void;
  /** When its last beat came (this registry's clock). */
  heardAt: number;
}

/**
 * A silent worker's answer to a probe (`inferenceWorkerAliveSubject`): `gone` when no process
 * holds its subscription (NATS answers "no responders" at once for a killed one) or it says it
 * is wedged; `alive` when it answered; `unknown` when no answer came in time (slow or cut off).
 */
export type ProbeVerdict = { state: 'alive' } | { state: 'gone'; reason: string } | { state: 'unknown' };
export type WorkerProbe = (workerId: string) => Promise<ProbeVerdict>;

/**
 * A silent worker that answers no probe is kept this long after its last beat, then dropped: a
 * host cut off without a word (no TCP reset for NATS to notice) is found within this bound.
 */
export const MAX_SILENCE_MS = 30_000;

export function heartbeatTtlMs(heartbeat: WorkerHeartbeat): number {
  return Math.max(heartbeat.intervalMs * MISSED_BEATS, MIN_TTL_MS);
}

/**
 * The inference workers this gateway replica has heard from. Each heartbeat renews a worker;
 * one that misses MISSED_BEATS of them while this replica was listening, or says `stopped`, is
 * dropped, and whoever streams from it is told at once (INFERENCE.WORKER_LOST) instead of
 * waiting out a timeout. A stall of this replica's own loop counts as not listening. Silence
 * alone is not death on a starved box (beats queue behind everything else), so with a `probe`
 * a silent worker is asked first: dropped when it is gone, kept while it answers, and dropped
 * after MAX_SILENCE_MS when it does not answer either.
 */
export class FleetRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly lostListeners = new Map<string, Set<(error: AppError) => void>>();

  constructor(
    private readonly store: FleetStore,
    private readonly log: Logger,
    /** Monotonic milliseconds, for tests that stall a fake clock. */
    private readonly now: () => number = () => performance.now(),
    /** Asks a silent worker before dropping it; without one, silence is death. */
    private readonly liveness?: { probe: WorkerProbe; maxSilenceMs?: number },
  ) {}

  apply(heartbeat: WorkerHeartbeat): void {
    const { workerId } = heartbeat;
    const previous = this.entries.get(workerId);
    previous?.unwatch();
    if (heartbeat.status === 'stopped') {
      this.drop(workerId, `Worker ${workerId} stopped`);
      return;
    }
    // The same id from a new process (a pinned WORKER_ID, restarted within the TTL): the old
    // process's generations died with it, and their streams would otherwise wait out their timeout.
    if (previous && previous.heartbeat.startedAt !== heartbeat.startedAt) this.notifyLost(workerId, `Worker ${workerId} restarted`);
    const ttl = heartbeatTtlMs(heartbeat);
    const entry: Entry = { heartbeat, unwatch: () => undefined, heardAt: this.now() };
    this.watch(entry, ttl);
    this.entries.set(workerId, entry);
    if (!previous) this.log.info({ workerId, models: heartbeat.models.map((m) => m.id) }, 'inference worker joined');
    this.store.save(heartbeat, ttl).catch((err: unknown) => this.log.warn({ err, workerId }, 'could not mirror the fleet to Redis'));
  }

  /** Live workers, draining ones included (they still finish what they run). */
  workers(): WorkerHeartbeat[] {
    return [...this.entries.values()].map((e) => e.heartbeat);
  }

  get(workerId: string): WorkerHeartbeat | undefined {
    return this.entries.get(workerId)?.heartbeat;
  }

  /** The live workers, or the Redis mirror while this replica has heard none yet. */
  async snapshot(): Promise<WorkerHeartbeat[]> {
    if (this.entries.size > 0) return this.workers();
    try {
      return await this.store.load();
    } catch (err) {
      this.log.warn({ err }, 'could not read the fleet from Redis');
      return [];
    }
  }

  /** Calls `listener` once if the worker is dropped; returns the unsubscribe. */
  onLost(workerId: string, listener: (error: AppError) => void): () => void {
    if (!this.entries.has(workerId)) {
      queueMicrotask(() => listener(lost(workerId, `Worker ${workerId} is not in the fleet`)));
      return () => undefined;
    }
    const listeners = this.lostListeners.get(workerId) ?? new Set();
    listeners.add(listener);
    this.lostListeners.set(workerId, listeners);
    return () => listeners.delete(listener);
  }

  close(): void {
    for (const entry of this.entries.values()) entry.unwatch();
    this.entries.clear();
    this.lostListeners.clear();
  }

  private watch(entry: Entry, ms: number): void {
    const { workerId } = entry.heartbeat;
    entry.unwatch = watchSilence(ms, entry.heartbeat.intervalMs, {
      onSilent: () => void this.judgeSilent(entry),
      onStalled: (lateMs) => this.log.info({ workerId, lateMs: Math.round(lateMs) }, 'this gateway stalled; reading the heartbeats it missed before judging the worker'),
      now: this.now,
    });
  }

  private async judgeSilent(entry: Entry): Promise<void> {
    const { workerId } = entry.heartbeat;
    if (!this.liveness) return this.drop(workerId, `Worker ${workerId} stopped heartbeating`);
    const verdict = await this.liveness.probe(workerId).catch((): ProbeVerdict => ({ state: 'unknown' }));
    // A beat came while the probe was out (it re-armed the watch), or the worker left.
    if (this.entries.get(workerId) !== entry) return;
    const silentMs = Math.round(this.now() - entry.heardAt);
    if (verdict.state === 'gone') return this.drop(workerId, `Worker ${workerId} stopped heartbeating (${verdict.reason})`);
    if (verdict.state === 'unknown' && silentMs >= (this.liveness.maxSilenceMs ?? MAX_SILENCE_MS)) {
      return this.drop(workerId, `Worker ${workerId} stopped heartbeating and answered no probe for ${Math.round(silentMs / 1000)} s`);
    }
    this.log.warn({ workerId, silentMs, answered: verdict.state === 'alive' }, 'inference worker silent but not gone: kept, its generations go on');
    this.watch(entry, entry.heartbeat.intervalMs);
  }

  private notifyLost(workerId: string, reason: string): void {
    const listeners = this.lostListeners.get(workerId);
    this.lostListeners.delete(workerId);
    for (const listener of listeners ?? []) listener(lost(workerId, reason));
  }

  private drop(workerId: string, reason: string): void {
    const entry = this.entries.get(workerId);
    entry?.unwatch();
    const known = this.entries.delete(workerId);
    if (known) this.log.warn({ workerId, reason }, 'inference worker dropped');
    this.notifyLost(workerId, reason);
    this.store.remove(workerId).catch((err: unknown) => this.log.warn({ err, workerId }, 'could not remove a worker from Redis'));
  }
}

function lost(workerId: string, reason: string): AppError {
  return new AppError(ErrorCode.WorkerLost, `${reason}; its generation is lost`, { workerId }, true);
}
