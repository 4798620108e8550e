import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { INestMicroservice } from '@nestjs/common';
import type { InferenceConfig } from '@weft/config';
import { QueueGroups } from '@weft/contracts';
import { createLogger, type Logger } from '@weft/logging';
import { createNatsMicroservice, NatsEventBus, natsServerFrom } from '@weft/messaging';
import type { NatsConnection } from 'nats';
import { createAppModule } from './app.module';
import { HeartbeatService } from './fleet/heartbeat.service';
import { loadModelsConfig } from './registry/load-models-config';
import type { ServerLink, WorkerIdentity } from './tokens';

/** Builds the inference microservice; `listen()` starts it, `close()` disposes the models. */
export async function createInferenceApp(
  config: InferenceConfig,
  logger: Logger = createLogger('inference', config.LOG_LEVEL),
): Promise<INestMicroservice> {
  const models = loadModelsConfig(config.MODELS_CONFIG, config.MODELS_DIR);
  const worker: WorkerIdentity = { workerId: config.WORKER_ID ?? defaultWorkerId(), startedAt: new Date().toISOString() };
  const log = logger.child({ workerId: worker.workerId });
  const bus = await NatsEventBus.connect(natsServerFrom(config), `inference-${worker.workerId}`, log);
  const link: { connection?: NatsConnection } = {};
  const server: ServerLink = {
    flush: async () => {
      const { connection } = link;
      if (!connection || connection.isClosed()) return false;
      await connection.flush();
      return true;
    },
  };
  const app = await createNatsMicroservice(createAppModule({ config, models, logger: log, worker, bus, server }), {
    nats: natsServerFrom(config),
    queue: QueueGroups.inference,
    logger: log,
  });
  // Nest's `unwrap()` ends the process when called before `listen()` or after `close()`, so the
  // connection is taken at the one moment it is known to exist.
  app.status.subscribe((status) => {
    if (status === 'connected') link.connection = app.unwrap<NatsConnection>();
  });
  return app;
}

/** The host name (the pod's, in Kubernetes) plus a random suffix: unique across restarts. */
function defaultWorkerId(): string {
  const host = hostname().replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 40) || 'worker';
  return `${host}-${randomBytes(3).toString('hex')}`;
}

/**
 * What SIGTERM does (Nest's shutdown hooks), for callers that close the app themselves: announce
 * `draining`, let in-flight generations finish while new ones get INFERENCE.BUSY, then close.
 * `app.close()` alone closes the NATS server first, so running replies would be lost.
 */
export async function drainAndClose(app: INestMicroservice): Promise<void> {
  await app.get(HeartbeatService).beforeApplicationShutdown();
  await app.close();
}
