import { Module } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import type { Logger } from '@weft/logging';
import { CONTAINER_RUNTIME, type ContainerRuntime } from '../docker/container-runtime';
import { DockerModule } from '../docker/docker.module';
import { runtimeFor } from '../docker/runtime-choice';
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
        // Under gVisor a snippet can open its PID 1's /proc files (environ, the pipes in fd/): the
        // one-shot server cannot be sealed there, so snippets run cold, each its own PID 1.
        const gvisor = runtimeFor(config, config.SANDBOX_IMAGE) === 'runsc';
        if (gvisor && config.SANDBOX_POOL_SIZE > 0) logger.info('no warm pool: snippets run cold on runsc (gVisor), where a pooled server cannot be sealed');
        // Sized for the default timeout; a longer run takes a young container or starts cold.
        const settings = {
          size: gvisor ? 0 : config.SANDBOX_POOL_SIZE,
          maxSize: gvisor ? 0 : config.SANDBOX_POOL_MAX,
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
