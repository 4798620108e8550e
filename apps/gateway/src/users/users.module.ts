import { Module } from '@nestjs/common';
import { TurnControlModule } from '../turns/turn-control.module';
import { SessionsModule } from '../sessions/sessions.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { BootstrapTokensService } from '../auth/bootstrap-tokens.service';
import { AdminBootstrapController } from './admin-bootstrap.controller';
import { AdminController } from './admin.controller';
import { UserDeletion } from './user-deletion';
import { MeController } from './me.controller';
import { UsersService } from './users.service';

@Module({
  imports: [SessionsModule, WorkspacesModule, TurnControlModule],
  controllers: [AdminController, AdminBootstrapController, MeController],
  providers: [UsersService, UserDeletion, BootstrapTokensService],
})
export class UsersModule {}
