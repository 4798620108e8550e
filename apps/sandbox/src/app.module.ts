import { Global, Module, type Type } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import type { Logger } from '@weft/logging';
import { ExecModule } from './exec/exec.module';
import { LongRunModule } from './long-runs/long-run.module';
import { LOGGER, SANDBOX_CONFIG } from './tokens';

/** The root module, closed over the config parsed once at boot. */
export function createAppModule(config: SandboxConfig, logger: Logger): Type<unknown> {
  @Global()
  @Module({
    providers: [
      { provide: SANDBOX_CONFIG, useValue: config },
      { provide: LOGGER, useValue: logger },
    ],
    exports: [SANDBOX_CONFIG, LOGGER],
  })
  class CoreModule {}

  @Module({ imports: [CoreModule, ExecModule, LongRunModule] })
  class AppModule {}
  return AppModule;
}
