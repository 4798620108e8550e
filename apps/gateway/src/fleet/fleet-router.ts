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
 * serve the model: those with it loaded, then loading, then those that can load it soonest (it
 * fits beside their loaded models before one that must unload others first), each group most
 * free sequences first; the queue group is the last resort, for workers this replica has not
 * heard from yet.
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
    const order = (s: (typeof serving)[number]) => [readiness(s.status, s.worker), load(s.status, s.worker)] as const;
    const sorted = [...serving].sort((a, b) => {
      const [ra, la] = order(a);
      const [rb, lb] = order(b);
      return ra - rb || la - lb;
    });
    for (const { worker } of sorted) {
      add(worker.workerId, 'least-loaded');
    }
    return [...targets.slice(0, MAX_ATTEMPTS - 1), { kind: 'queue-group' }];
  }
}

/**
 * Lower is sooner: loaded, loading, a load that fits in the worker's free model memory, then one
 * that must unload other models first (or whose size is not known yet).
 */
function readiness(status: WorkerModelStatus, worker: WorkerHeartbeat): number {
  const state = status.state ?? (status.loaded ? 'loaded' : 'unloaded');
  if (state === 'loaded') return 0;
  if (state === 'loading') return 1;
  const free = worker.memory && worker.memory.budgetBytes - worker.memory.usedBytes;
  return free !== undefined && status.memoryBytes !== undefined && status.memoryBytes <= free ? 2 : 3;
}

/** Lower is better: free sequences first, then the shortest queue. */
function load(status: WorkerModelStatus, worker: WorkerHeartbeat): number {
  if (status.freeSequences > 0) return -status.freeSequences;
  const full = status.queued >= status.maxQueue ? 1_000_000 : 0;
  return full + status.queued + worker.inFlight / 1000;
}
