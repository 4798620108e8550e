import { Controller } from '@nestjs/common';
import { type WorkerHeartbeat, apiRoutes } from '@weft/contracts';
import { Route } from '../common/api-route.decorator';
import { FleetRegistry } from './fleet-registry';

/** One inference worker as an admin sees it: where it runs, what it serves, how busy it is. */
export function describeWorker(heartbeat: WorkerHeartbeat) {
  return {
    workerId: heartbeat.workerId,
    host: heartbeat.host ?? null,
    status: heartbeat.status,
    startedAt: heartbeat.startedAt,
    lastHeartbeatAt: heartbeat.sentAt,
    inFlight: heartbeat.inFlight,
    gpu: heartbeat.gpu ?? null,
    memory: heartbeat.memory ?? null,
    models: heartbeat.models.map((model) => ({
      id: model.id,
      loaded: model.loaded,
      state: model.state ?? (model.loaded ? 'loaded' : 'unloaded'),
      memoryBytes: model.memoryBytes ?? null,
      pinned: model.pinned ?? false,
      sequences: model.sequences ?? null,
      freeSequences: model.freeSequences,
      queued: model.queued,
      // How many, not which: session ids stay with their owners.
      cachedSessions: model.cachedSessions.length,
    })),
  };
}

@Controller()
export class FleetController {
  constructor(private readonly registry: FleetRegistry) {}

  /** The inference workers this gateway hears from, local or on other hosts. */
  @Route(apiRoutes.fleet)
  list() {
    const workers = this.registry.workers().map(describeWorker);
    return { workers: workers.sort((a, b) => a.workerId.localeCompare(b.workerId)) };
  }
}
