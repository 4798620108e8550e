import { Module } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import { CONTAINER_RUNTIME, type ContainerRuntime } from '../docker/container-runtime';
import { DockerModule } from '../docker/docker.module';
import { PoolModule } from '../pool/pool.module';
import { SANDBOX_CONFIG } from '../tokens';
import { ExecController } from './exec.controller';
import { EgressNetwork } from './egress-network';
import { ExecService } from './exec.service';
import { WorkspaceLocator } from './workspace-locator';
import { ImageCatalogue } from '../images/image-catalogue';
import { ProxyNetworks } from '../sessions/proxy-networks';
import { SessionContainers } from '../sessions/session-containers';
import { CacheQuota } from '../cache/cache-quota';
import { SessionsController } from '../sessions/sessions.controller';
import { McpController } from '../mcp/mcp.controller';
import { StdioMcpServers } from '../mcp/stdio-servers';
import { RunCancellations } from '../long-runs/run-cancellations';
import { SandboxGauges } from '../metrics/sandbox-gauges';

@Module({
  imports: [DockerModule, PoolModule],
  controllers: [ExecController, SessionsController, McpController],
  providers: [
    ExecService,
    // Short runs and long runs alike; the long-run worker feeds it the cancels it hears.
    { provide: RunCancellations, useFactory: () => new RunCancellations() },
    StdioMcpServers,
    EgressNetwork,
    ProxyNetworks,
    SessionContainers,
    CacheQuota,
    SandboxGauges,
    { provide: ImageCatalogue, inject: [SANDBOX_CONFIG], useFactory: (config: SandboxConfig) => new ImageCatalogue(config) },
    {
      provide: WorkspaceLocator,
      inject: [SANDBOX_CONFIG, CONTAINER_RUNTIME],
      useFactory: (config: SandboxConfig, runtime: ContainerRuntime) => new WorkspaceLocator(config, runtime),
    },
  ],
  exports: [ExecService, RunCancellations],
})
export class ExecModule {}
