import { Module, type Type } from '@nestjs/common';
import type { ToolsConfig } from '@weft/config';
import { Routes, SERVICE_HEARTBEAT_INTERVAL_MS } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { ServiceHeartbeatPublisher, natsServerFrom } from '@weft/messaging';
import { MetricsEndpoint } from '@weft/metrics';
import { GitCloner } from './git/git-cloner';
import { GitImporter } from './git/git-importer';
import { ToolsMetrics } from './metrics/tools-metrics';
import { RipgrepAdapter } from './search/ripgrep.adapter';
import { ToolRegistry } from './tool/tool-registry';
import { ToolsController } from './tool/tools.controller';
import { TOOLS_CONFIG, TOOLS_LOGGER } from './tokens';
import { WorkspaceService } from './workspace/workspace.service';
import { WorkspaceStore } from './workspace/workspace-store';
import { WorkspacesController } from './workspace/workspaces.controller';

/** The tools worker's module, bound to a parsed config (tests pass their own). */
export function createAppModule(config: ToolsConfig, logger: Logger): Type<unknown> {
  @Module({
    controllers: [ToolsController, WorkspacesController],
    providers: [
      { provide: TOOLS_CONFIG, useValue: config },
      { provide: TOOLS_LOGGER, useValue: logger },
      {
        // So the gateway fails a call in flight here within seconds if this worker dies.
        provide: ServiceHeartbeatPublisher,
        useFactory: () =>
          new ServiceHeartbeatPublisher(
            { nats: natsServerFrom(config), route: Routes.toolsWorkerAnnounced, intervalMs: SERVICE_HEARTBEAT_INTERVAL_MS, service: 'tools' },
            logger,
          ),
      },
      { provide: ToolsMetrics, useValue: new ToolsMetrics(config.WORKSPACES_DIR) },
      {
        provide: MetricsEndpoint,
        useFactory: (metrics: ToolsMetrics) => new MetricsEndpoint(metrics.registry, { port: config.METRICS_PORT, host: config.METRICS_HOST }, logger),
        inject: [ToolsMetrics],
      },
      { provide: WorkspaceStore, useFactory: (c: ToolsConfig) => new WorkspaceStore(c.WORKSPACES_DIR), inject: [TOOLS_CONFIG] },
      {
        provide: WorkspaceService,
        useFactory: (c: ToolsConfig, store: WorkspaceStore, log: Logger) => {
          const limits = { maxBytes: c.WORKSPACE_MAX_BYTES, maxEntries: c.WORKSPACE_MAX_FILES };
          const git = new GitImporter(store, new GitCloner(), limits, {
            allowedHosts: c.WORKSPACE_GIT_ALLOWED_HOSTS,
            cloneTimeoutMs: c.WORKSPACE_GIT_CLONE_TIMEOUT_MS,
            workspacesDir: c.WORKSPACES_DIR,
          }, log);
          return new WorkspaceService(store, limits, log, git);
        },
        inject: [TOOLS_CONFIG, WorkspaceStore, TOOLS_LOGGER],
      },
      {
        provide: ToolRegistry,
        useFactory: (c: ToolsConfig, store: WorkspaceStore) =>
          new ToolRegistry(store, { readFileMaxBytes: c.READ_FILE_MAX_BYTES, outputMaxBytes: c.READ_FILE_MAX_BYTES }, new RipgrepAdapter()),
        inject: [TOOLS_CONFIG, WorkspaceStore],
      },
    ],
  })
  class ToolsAppModule {}
  return ToolsAppModule;
}
