import { Global, Module, type Type } from '@nestjs/common';
import type { InferenceConfig } from '@weft/config';
import type { Logger } from '@weft/logging';
import { InferenceModule } from './generate/inference.module';
import type { ModelsConfig } from './registry/models-config.schema';
import { INFERENCE_CONFIG, LOGGER, MODELS_CONFIG } from './tokens';

/** The root module, closed over the config and model registry parsed once at boot. */
export function createAppModule(config: InferenceConfig, models: ModelsConfig, logger: Logger): Type<unknown> {
  @Global()
  @Module({
    providers: [
      { provide: INFERENCE_CONFIG, useValue: config },
      { provide: MODELS_CONFIG, useValue: models },
      { provide: LOGGER, useValue: logger },
    ],
    exports: [INFERENCE_CONFIG, MODELS_CONFIG, LOGGER],
  })
  class CoreModule {}

  @Module({ imports: [CoreModule, InferenceModule] })
  class AppModule {}
  return AppModule;
}
