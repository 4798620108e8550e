import { Module } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import type { Logger } from '@weft/logging';
import { ExecModule } from '../exec/exec.module';
import { LOGGER, SANDBOX_CONFIG } from '../tokens';
import { LongRunService } from './long-run.service';
import { LongRunWorker } from './long-run.worker';
import { NatsEventBus, natsServerFrom } from '@weft/messaging';

/** Long runs: the queue's worker, their streamed output and their cancellation. */
@Module({
  imports: [ExecModule],
  providers: [
    {
      provide: NatsEventBus,
      inject: [SANDBOX_CONFIG, LOGGER],
      useFactory: (config: SandboxConfig, logger: Logger) => NatsEventBus.connect(natsServerFrom(config), 'sandbox-bus', logger),
    },
    LongRunService,
    LongRunWorker,
  ],
})
export class LongRunModule {}
