import type { INestMicroservice } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import { QueueGroups } from '@weft/contracts';
import { createLogger, type Logger } from '@weft/logging';
import { createNatsMicroservice, natsServerFrom } from '@weft/messaging';
import { createAppModule } from './app.module';
import { DockerAdapter } from './docker/docker.adapter';
import { checkEngine } from './docker/engine-preflight';

/**
 * Builds the sandbox microservice; `listen()` starts it, `close()` drains it and cleans up.
 * Rejects with an EnginePreflightError, before anything starts, when the engine cannot isolate
 * runs as configured (an unknown SANDBOX_RUNTIME, no seccomp).
 */
export async function createSandboxApp(
  config: SandboxConfig,
  logger: Logger = createLogger('sandbox', config.LOG_LEVEL),
): Promise<INestMicroservice> {
  await checkEngine(
    new DockerAdapter({ socketPath: config.DOCKER_SOCKET, instanceId: 'preflight' }, logger),
    { runtime: config.SANDBOX_RUNTIME },
    logger,
  );
  const app = await createNatsMicroservice(createAppModule(config, logger), {
    nats: natsServerFrom(config),
    queue: QueueGroups.sandbox,
    logger,
  });
  return app;
}
