import type { INestMicroservice } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import { QueueGroups } from '@weft/contracts';
import { createLogger, type Logger } from '@weft/logging';
import { createNatsMicroservice, natsServerFrom } from '@weft/messaging';
import { createAppModule } from './app.module';
import { DockerAdapter } from './docker/docker.adapter';
import { checkEngine } from './docker/engine-preflight';
import { describeChoice } from './docker/runtime-choice';
import { seccompProfile } from './docker/seccomp-profile';

/**
 * Builds the sandbox microservice; `listen()` starts it, `close()` drains it and cleans up.
 * Rejects with an EnginePreflightError, before anything starts, when the engine cannot isolate
 * runs as configured (an unknown SANDBOX_RUNTIME, no seccomp). SANDBOX_RUNTIME=auto is settled
 * here, once: the modules see `runsc` or `runc` (or `auto` where the engine was not reached, which
 * leaves each container to the engine's default runtime).
 */
export async function createSandboxApp(
  config: SandboxConfig,
  logger: Logger = createLogger('sandbox', config.LOG_LEVEL),
): Promise<INestMicroservice> {
  // Read now, so a missing or broken profile stops the boot rather than every run.
  seccompProfile();
  const choice = await checkEngine(new DockerAdapter({ socketPath: config.DOCKER_SOCKET, instanceId: 'preflight' }, logger), config, logger);
  logger.info({ runtime: choice.runtime ?? 'engine default', gvisorListed: choice.gvisorListed, imageRuntimes: config.SANDBOX_IMAGE_RUNTIMES }, describeChoice(choice, config.SANDBOX_IMAGE_RUNTIMES));
  const settled: SandboxConfig = { ...config, SANDBOX_RUNTIME: choice.runtime ?? 'auto' };
  const app = await createNatsMicroservice(createAppModule(settled, logger), {
    nats: natsServerFrom(config),
    queue: QueueGroups.sandbox,
    logger,
  });
  return app;
}
