import { Module } from '@nestjs/common';
import { TurnControlModule } from '../agent/turn-control.module';
import { SessionsModule } from '../sessions/sessions.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { UserDeletion } from './user-deletion';
import { AdminAuditController, AdminController } from './admin.controller';
import { MeController } from './me.controller';
import { UsersService } from './users.service';

@Module({
  imports: [SessionsModule, WorkspacesModule, TurnControlModule],
  controllers: [AdminController, AdminAuditController, MeController],
  providers: [UsersService, UserDeletion],
})
export class UsersModule {}
