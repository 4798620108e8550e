import { Module } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import type { Logger } from '@weft/logging';
import { CONTAINER_RUNTIME, type ContainerRuntime } from '../docker/container-runtime';
import { DockerModule } from '../docker/docker.module';
import { buildWarmSpec } from '../exec/container-spec';
import { LOGGER, SANDBOX_CONFIG } from '../tokens';
import { WarmPool } from './warm-pool';

/** The largest timeout a request may ask for (the contract's cap). */
const MAX_RUN_MS = 600_000;

@Module({
  imports: [DockerModule],
  providers: [
    {
      provide: WarmPool,
      inject: [SANDBOX_CONFIG, CONTAINER_RUNTIME, LOGGER],
      useFactory: (config: SandboxConfig, runtime: ContainerRuntime, logger: Logger) => {
        // Sized for the default timeout; a longer run takes a young container or starts cold.
        const settings = {
          size: config.SANDBOX_POOL_SIZE,
          maxSize: config.SANDBOX_POOL_MAX,
          // A burst keeps the pool grown as long as an idle container would wait for its snippet.
          demandWindowMs: config.SANDBOX_POOL_MAX_IDLE_MS,
          idleMs: config.SANDBOX_POOL_MAX_IDLE_MS,
          maxRunMs: Math.min(MAX_RUN_MS, config.SANDBOX_TIMEOUT_MS),
        };
        const specFor = (now: number) => buildWarmSpec({ now, idleMs: settings.idleMs, maxRunMs: settings.maxRunMs }, config);
        return new WarmPool(runtime, specFor, settings, logger);
      },
    },
  ],
  exports: [WarmPool],
})
export class PoolModule {}
