import { AppError, ErrorCode, type ServiceHeartbeat } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { MISSED_BEATS } from './fleet-registry';
import { watchSilence } from './silence-watch';

/** The services whose workers take calls from a queue group and announce themselves. */
export type WorkerService = 'tools' | 'sandbox';

interface Worker {
  startedAt: string;
  unwatch: () => void;
}

/** A call in flight: the workers that could have taken it, and whom to tell once none is left. */
interface Watcher {
  candidates: Set<string>;
  onLost: (error: AppError) => void;
}

/**
 * Which tools and sandbox workers live, from their heartbeats, as this gateway replica hears
 * them. A call goes to one worker of a queue group and the gateway does not learn which, so a
 * call in flight is lost only once every worker that was alive when it was sent has died (missed
 * MISSED_BEATS beats, or came back as a new process under its id). A slow command is no sign:
 * its worker keeps beating. A stall of this replica's own loop counts as not listening.
 */
export class ServiceLiveness {
  private readonly workers = new Map<WorkerService, Map<string, Worker>>([
    ['tools', new Map()],
    ['sandbox', new Map()],
  ]);
  private readonly watchers = new Map<WorkerService, Set<Watcher>>([
    ['tools', new Set()],
    ['sandbox', new Set()],
  ]);
  /** The last beat interval heard per service: a service that beats, and how long its silence may last. */
  private readonly intervals = new Map<WorkerService, number>();

  constructor(private readonly log: Logger) {}

  apply(service: WorkerService, heartbeat: ServiceHeartbeat): void {
    const workers = this.workers.get(service)!;
    this.intervals.set(service, heartbeat.intervalMs);
    const previous = workers.get(heartbeat.workerId);
    previous?.unwatch();
    if (previous && previous.startedAt !== heartbeat.startedAt) this.lose(service, heartbeat.workerId, 'restarted');
    const unwatch = watchSilence(heartbeat.intervalMs * MISSED_BEATS, heartbeat.intervalMs, {
      onSilent: () => {
        workers.delete(heartbeat.workerId);
        this.log.warn({ service, workerId: heartbeat.workerId }, 'worker stopped heartbeating');
        this.lose(service, heartbeat.workerId, 'stopped heartbeating');
      },
    });
    workers.set(heartbeat.workerId, { startedAt: heartbeat.startedAt, unwatch });
    if (!previous) this.log.info({ service, workerId: heartbeat.workerId }, 'worker joined');
  }

  /** The workers heard from within the last few beats. */
  live(service: WorkerService): string[] {
    return [...this.workers.get(service)!.keys()];
  }

  /**
   * Calls `onLost` once if every worker of `service` alive now dies before the returned stop is
   * called. With none alive of a service that beats, once one silence (three beats) passes
   * unanswered: a worker is heard before it subscribes, so one that joins later cannot hold the
   * call, and the grace spares a worker whose beats alone are lost (its own NATS connection).
   * With none ever heard (workers that do not beat, a replica that just started) it never
   * calls: the call's own timeout stays the bound.
   */
  watch(service: WorkerService, onLost: (error: AppError) => void): () => void {
    const candidates = new Set(this.live(service));
    const intervalMs = this.intervals.get(service);
    if (candidates.size === 0) {
      if (intervalMs === undefined) return () => undefined;
      return watchSilence(intervalMs * MISSED_BEATS, intervalMs, { onSilent: () => onLost(unavailable(service, 'none', 'is heard from')) });
    }
    const watcher: Watcher = { candidates, onLost };
    const watchers = this.watchers.get(service)!;
    watchers.add(watcher);
    return () => watchers.delete(watcher);
  }

  /** Rejects with the loss when every worker that could be running the call died; else as `call` does. */
  async guard<T>(service: WorkerService, call: Promise<T>): Promise<T> {
    let stop = () => undefined as unknown;
    const lost = new Promise<never>((_, reject) => {
      stop = this.watch(service, reject);
    });
    // Once the loss is reported, the call's own timeout that follows has nothing to add.
    call.catch(() => undefined);
    try {
      return await Promise.race([call, lost]);
    } finally {
      stop();
    }
  }

  close(): void {
    for (const workers of this.workers.values()) {
      for (const worker of workers.values()) worker.unwatch();
      workers.clear();
    }
    for (const watchers of this.watchers.values()) watchers.clear();
    this.intervals.clear();
  }

  private lose(service: WorkerService, workerId: string, why: string): void {
    const watchers = this.watchers.get(service)!;
    for (const watcher of [...watchers]) {
      watcher.candidates.delete(workerId);
      if (watcher.candidates.size > 0) continue;
      watchers.delete(watcher);
      watcher.onLost(unavailable(service, workerId, why));
    }
  }
}

function unavailable(service: WorkerService, workerId: string, why: string): AppError {
  const code = service === 'tools' ? ErrorCode.ToolsUnavailable : ErrorCode.SandboxUnavailable;
  const who = workerId === 'none' ? `No ${service} worker` : `The ${service} worker that could run the call (${workerId})`;
  return new AppError(code, `${who} ${why}; the call is lost`, { service, workerId }, true);
}
