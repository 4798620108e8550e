import { Module } from '@nestjs/common';
import { WorkspaceExpiryController } from './workspace-expiry.controller';
import { WorkspaceExpiry } from './workspace-expiry.service';
import { WorkspaceFilesClient } from './workspace-files.client';
import { WorkspaceLocks } from './workspace-locks';
import { WorkspaceQuotaGuard } from './workspace-quota-guard';
import { WorkspaceSyncService } from './workspace-sync.service';
import { SettingsController } from './settings.controller';
import { WorkspacesController } from './workspaces.controller';
import { WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

@Module({
  controllers: [WorkspacesController, WorkspaceExpiryController, SettingsController],
  providers: [WorkspacesRepository, WorkspaceFilesClient, WorkspacesService, WorkspaceQuotaGuard, WorkspaceLocks, WorkspaceSyncService, WorkspaceExpiry],
  exports: [WorkspacesService, WorkspaceQuotaGuard],
})
export class WorkspacesModule {}
