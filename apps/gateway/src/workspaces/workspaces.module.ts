import { Module } from '@nestjs/common';
import { WorkspaceFilesClient } from './workspace-files.client';
import { WorkspacesController } from './workspaces.controller';
import { WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

@Module({
  controllers: [WorkspacesController],
  providers: [WorkspacesRepository, WorkspaceFilesClient, WorkspacesService],
  exports: [WorkspacesService],
})
export class WorkspacesModule {}
