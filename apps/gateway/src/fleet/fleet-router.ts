import type { WorkerHeartbeat, WorkerModelStatus } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { FleetRegistry } from './fleet-registry';

/** Where one attempt of a generation goes: a worker's own subject, or the shared queue group. */
export type Target =
  | { kind: 'worker'; workerId: string; reason: 'affinity' | 'cached' | 'least-loaded' }
  | { kind: 'queue-group' };

export interface AffinityStore {
  affinity(sessionId: string): Promise<string | undefined>;
  recordAffinity(sessionId: string, workerId: string): Promise<void>;
}

/** Attempts per generation: busy or vanished workers are skipped, the queue group comes last. */
export const MAX_ATTEMPTS = 4;

/**
 * Orders the workers to try for a request: the one holding the session's KV cache (recorded
 * affinity, else a worker announcing the session among its cached ones), then the rest that
 * serve the model, most free sequences first; the queue group is the last resort, for workers
 * this replica has not heard from yet.
 */
export class FleetRouter {
  constructor(
    private readonly registry: FleetRegistry,
    private readonly affinity: AffinityStore,
    private readonly log: Logger,
  ) {}

  async plan(model: string, sessionId?: string): Promise<Target[]> {
    const serving = this.registry
      .workers()
      .filter((w) => w.status === 'ready')
      .flatMap((worker) => {
        const status = worker.models.find((m) => m.id === model);
        return status ? [{ worker, status }] : [];
      });
    const targets: Target[] = [];
    const taken = new Set<string>();
    const add = (workerId: string, reason: 'affinity' | 'cached' | 'least-loaded') => {
      if (taken.has(workerId)) return;
      taken.add(workerId);
      targets.push({ kind: 'worker', workerId, reason });
    };
    if (sessionId) {
      const recorded = await this.affinity.affinity(sessionId).catch((err: unknown) => {
        this.log.warn({ err, sessionId }, 'could not read session affinity');
        return undefined;
      });
      if (recorded && serving.some((s) => s.worker.workerId === recorded)) add(recorded, 'affinity');
      const holder = serving.find((s) => s.status.cachedSessions.includes(sessionId));
      if (holder) add(holder.worker.workerId, 'cached');
    }
    for (const { worker } of [...serving].sort((a, b) => load(a.status, a.worker) - load(b.status, b.worker))) {
      add(worker.workerId, 'least-loaded');
    }
    return [...targets.slice(0, MAX_ATTEMPTS - 1), { kind: 'queue-group' }];
  }
}

/** Lower is better: free sequences first, then the shortest queue. */
function load(status: WorkerModelStatus, worker: WorkerHeartbeat): number {
  if (status.freeSequences > 0) return -status.freeSequences;
  const full = status.queued >= status.maxQueue ? 1_000_000 : 0;
  return full + status.queued + worker.inFlight / 1000;
}
