import { Module } from '@nestjs/common';
import { FleetModule } from '../fleet/fleet.module';
import { AdminModelsController } from './admin-models.controller';
import { AdminModelsService } from './admin-models.service';
import { ModelsController } from './models.controller';
import { ModelsService } from './models.service';

@Module({ imports: [FleetModule], controllers: [ModelsController, AdminModelsController], providers: [ModelsService, AdminModelsService], exports: [ModelsService] })
export class ModelsModule {}
