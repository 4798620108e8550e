import { Global, Module, type Type } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import { Routes, SERVICE_HEARTBEAT_INTERVAL_MS } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { ServiceHeartbeatPublisher, natsServerFrom } from '@weft/messaging';
import { MetricsEndpoint } from '@weft/metrics';
import { ExecModule } from './exec/exec.module';
import { LongRunModule } from './long-runs/long-run.module';
import { SandboxMetrics } from './metrics/sandbox-metrics';
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
      { provide: SandboxMetrics, useValue: new SandboxMetrics(config.WORKSPACES_DIR) },
      {
        provide: MetricsEndpoint,
        useFactory: (metrics: SandboxMetrics) => new MetricsEndpoint(metrics.registry, { port: config.METRICS_PORT, host: config.METRICS_HOST }, logger),
        inject: [SandboxMetrics],
      },
    ],
    exports: [SANDBOX_CONFIG, LOGGER, SandboxMetrics],
  })
  class CoreModule {}

  @Module({ imports: [CoreModule, ExecModule, LongRunModule] })
  class AppModule {}
  return AppModule;
}
