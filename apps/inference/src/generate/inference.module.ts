import { Module } from '@nestjs/common';
import type { Logger } from '@weft/logging';
import { createDrivers } from '../drivers/create-drivers';
import type { ModelsConfig } from '../registry/models-config.schema';
import { INFERENCE_DRIVERS, LOGGER, MODELS_CONFIG } from '../tokens';
import { InferenceController } from './inference.controller';
import { InferenceService } from './inference.service';

@Module({
  controllers: [InferenceController],
  providers: [
    InferenceService,
    {
      provide: INFERENCE_DRIVERS,
      inject: [MODELS_CONFIG, LOGGER],
      useFactory: (config: ModelsConfig, log: Logger) => createDrivers(config, log),
    },
  ],
})
export class InferenceModule {}
