import { Module } from '@nestjs/common';
import { FleetModule } from '../fleet/fleet.module';
import { ModelsController } from './models.controller';
import { ModelsService } from './models.service';

@Module({ imports: [FleetModule], controllers: [ModelsController], providers: [ModelsService], exports: [ModelsService] })
export class ModelsModule {}
