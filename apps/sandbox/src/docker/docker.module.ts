import { hostname } from 'node:os';
import { Module } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import type { Logger } from '@weft/logging';
import { LOGGER, SANDBOX_CONFIG } from '../tokens';
import { ContainerJanitor } from './container-janitor';
import { CONTAINER_RUNTIME } from './container-runtime';
import { DockerAdapter } from './docker.adapter';
import { SubnetPool } from './subnet-pool';

@Module({
  providers: [
    {
      provide: CONTAINER_RUNTIME,
      inject: [SANDBOX_CONFIG, LOGGER],
      useFactory: (config: SandboxConfig, logger: Logger) =>
        new DockerAdapter(
          // The host name, not a random id: in a container it outlives a crash of the process, so
          // the restarted worker finds (and removes) what its predecessor left running.
          {
            socketPath: config.DOCKER_SOCKET,
            instanceId: config.SANDBOX_INSTANCE_ID ?? hostname(),
            proxySubnets: new SubnetPool(config.SANDBOX_PROXY_SUBNETS, config.SANDBOX_PROXY_SUBNET_PREFIX),
          },
          logger,
        ),
    },
    ContainerJanitor,
  ],
  exports: [CONTAINER_RUNTIME],
})
export class DockerModule {}
