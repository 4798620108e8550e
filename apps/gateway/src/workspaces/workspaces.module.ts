import { Module } from '@nestjs/common';
import { WorkspaceFilesClient } from './workspace-files.client';
import { WorkspaceQuotaGuard } from './workspace-quota-guard';
import { WorkspacesController } from './workspaces.controller';
import { WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

@Module({
  controllers: [WorkspacesController],
  providers: [WorkspacesRepository, WorkspaceFilesClient, WorkspacesService, WorkspaceQuotaGuard],
  exports: [WorkspacesService, WorkspaceQuotaGuard],
})
export class WorkspacesModule {}
