import type { FleetWorker } from '../account/types';

const GIB = 1024 ** 3;

/** `12.5 / 80.0 GiB (16%)`, or `CPU` for a worker without a GPU. */
export function describeGpu(gpu: FleetWorker['gpu']): string {
  if (!gpu) return 'CPU';
  const share = gpu.vramTotalBytes > 0 ? ` (${Math.round((gpu.vramUsedBytes / gpu.vramTotalBytes) * 100)}%)` : '';
  return `${gpu.type}: ${(gpu.vramUsedBytes / GIB).toFixed(1)} / ${(gpu.vramTotalBytes / GIB).toFixed(1)} GiB${share}`;
}

export interface FleetSummary {
  workers: number;
  /** Workers whose status is not `ready`. */
  notReady: number;
  models: string[];
  freeSequences: number;
  queued: number;
  inFlight: number;
}

/** The fleet at a glance: how many workers, which models are loaded, how much room is left. */
export function summarizeFleet(workers: readonly FleetWorker[]): FleetSummary {
  const models = new Set<string>();
  let freeSequences = 0;
  let queued = 0;
  for (const worker of workers) {
    for (const model of worker.models) {
      if (model.loaded) models.add(model.id);
      freeSequences += model.freeSequences;
      queued += model.queued;
    }
  }
  return {
    workers: workers.length,
    notReady: workers.filter((w) => w.status !== 'ready').length,
    models: [...models].sort(),
    freeSequences,
    queued,
    inFlight: workers.reduce((sum, w) => sum + w.inFlight, 0),
  };
}

/** Seconds since the worker's last heartbeat; a worker that stops beating is dropped by the gateway. */
export function heartbeatAgeSeconds(lastHeartbeatAt: string, now = Date.now()): number | null {
  const at = Date.parse(lastHeartbeatAt);
  return Number.isNaN(at) ? null : Math.max(0, Math.round((now - at) / 1000));
}
