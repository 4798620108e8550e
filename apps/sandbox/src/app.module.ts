import { Global, Module, type Type } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import { Routes, SERVICE_HEARTBEAT_INTERVAL_MS } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { ServiceHeartbeatPublisher, natsServerFrom } from '@weft/messaging';
import { ExecModule } from './exec/exec.module';
import { LongRunModule } from './long-runs/long-run.module';
import { LOGGER, SANDBOX_CONFIG } from './tokens';

/** The root module, closed over the config parsed once at boot. */
export function createAppModule(config: SandboxConfig, logger: Logger): Type<unknown> {
  @Global()
  @Module({
    providers: [
      { provide: SANDBOX_CONFIG, useValue: config },
      { provide: LOGGER, useValue: logger },
      {
        // So the gateway fails a command in flight here within seconds if this worker dies; a
        // long command does not stop the beats (it is awaited, not run on this loop).
        provide: ServiceHeartbeatPublisher,
        useFactory: () =>
          new ServiceHeartbeatPublisher(
            { nats: natsServerFrom(config), route: Routes.sandboxWorkerAnnounced, intervalMs: SERVICE_HEARTBEAT_INTERVAL_MS, service: 'sandbox' },
            logger,
          ),
      },
    ],
    exports: [SANDBOX_CONFIG, LOGGER],
  })
  class CoreModule {}

  @Module({ imports: [CoreModule, ExecModule, LongRunModule] })
  class AppModule {}
  return AppModule;
}
