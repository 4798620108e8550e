import { Module } from '@nestjs/common';
import { AdminController } from './admin.controller';
import { MeController } from './me.controller';
import { UsersService } from './users.service';

@Module({ controllers: [AdminController, MeController], providers: [UsersService] })
export class UsersModule {}
