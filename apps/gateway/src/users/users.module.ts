import { Module } from '@nestjs/common';
import { TurnControlModule } from '../agent/turn-control.module';
import { SessionsModule } from '../sessions/sessions.module';
import { AdminController } from './admin.controller';
import { MeController } from './me.controller';
import { UsersService } from './users.service';

@Module({ imports: [SessionsModule, TurnControlModule], controllers: [AdminController, MeController], providers: [UsersService] })
export class UsersModule {}
