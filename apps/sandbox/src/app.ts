import type { INestMicroservice } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import { QueueGroups } from '@weft/contracts';
import { createLogger, type Logger } from '@weft/logging';
import { createNatsMicroservice } from '@weft/messaging';
import { createAppModule } from './app.module';

/** Builds the sandbox microservice; `listen()` starts it, `close()` drains it and cleans up. */
export async function createSandboxApp(
  config: SandboxConfig,
  logger: Logger = createLogger('sandbox', config.LOG_LEVEL),
): Promise<INestMicroservice> {
  const app = await createNatsMicroservice(createAppModule(config, logger), {
    natsUrl: config.NATS_URL,
    queue: QueueGroups.sandbox,
    logger,
  });
  return app;
}
