import { Module } from '@nestjs/common';
import { TurnQueueModule } from '../turns/turn-queue.module';
import { SessionsModule } from '../sessions/sessions.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { PermissionGate } from './permission-gate';
import { PermissionRequestsRepository } from './permission-requests.repository';
import { PermissionRulesRepository } from './permission-rules.repository';
import { AdminPermissionsController, PermissionRequestsController, PermissionRulesController } from './permissions.controller';
import { PermissionsService } from './permissions.service';
import { PermissionPolicy } from './policy';
import { RuleLayersSource } from './rule-layers';
import { BashParser } from './shell/bash-parser';
import { WorkspaceSettingsReader } from './workspace-settings.reader';

@Module({
  imports: [SessionsModule, WorkspacesModule, TurnQueueModule],
  controllers: [PermissionRulesController, PermissionRequestsController, AdminPermissionsController],
  providers: [
    { provide: PermissionPolicy, useFactory: async () => new PermissionPolicy(await BashParser.load()) },
    PermissionRulesRepository,
    PermissionRequestsRepository,
    WorkspaceSettingsReader,
    RuleLayersSource,
    PermissionsService,
    PermissionGate,
  ],
  exports: [PermissionGate, PermissionRequestsRepository],
})
export class PermissionsModule {}
