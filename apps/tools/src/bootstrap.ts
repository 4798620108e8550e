import type { INestMicroservice } from '@nestjs/common';
import type { ToolsConfig } from '@weft/config';
import { QueueGroups } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { createNatsMicroservice, natsServerFrom } from '@weft/messaging';
import { createAppModule } from './app.module';

/** Boots the tools worker on NATS; used by main.ts and by the integration test. */
export async function startToolsWorker(config: ToolsConfig, logger: Logger): Promise<INestMicroservice> {
  const app = await createNatsMicroservice(createAppModule(config, logger), {
    nats: natsServerFrom(config),
    queue: QueueGroups.tools,
    logger,
  });
  await app.listen();
  return app;
}
