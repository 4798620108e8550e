import { Module } from '@nestjs/common';
import { ChainsModule } from '../chains/chains.module';
import { TurnControlModule } from '../turns/turn-control.module';
import { TurnQueueModule } from '../turns/turn-queue.module';
import { EventsModule } from '../events/events.module';
import { ModelsModule } from '../models/models.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { SessionEventsController } from './session-events.controller';
import { SessionsController } from './sessions.controller';
import { SessionsRepository } from './sessions.repository';
import { SandboxSessionsClient } from './sandbox-sessions.client';
import { SandboxCheckController } from './sandbox-check.controller';
import { PackageInstallCheckService } from './package-install-check';
import { SandboxImagesController } from './sandbox-images.controller';
import { SessionsService } from './sessions.service';
import { WorkspaceChainsController } from './workspace-chains.controller';

@Module({
  imports: [EventsModule, ModelsModule, WorkspacesModule, TurnQueueModule, TurnControlModule, ChainsModule],
  controllers: [SessionsController, SessionEventsController, SandboxImagesController, SandboxCheckController, WorkspaceChainsController],
  providers: [SessionsRepository, SessionsService, SandboxSessionsClient, PackageInstallCheckService],
  exports: [SessionsRepository],
})
export class SessionsModule {}
