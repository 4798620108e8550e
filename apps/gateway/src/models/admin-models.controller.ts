import { Body, Controller, Param, Query, Res } from '@nestjs/common';
import { adminModelIdSchema, apiRoutes, type ModelSettings, type PullModelBody } from '@weft/contracts';
import type { Response } from 'express';
import { type AdminActor, CurrentAdmin } from '../auth/admin-actor';
import { Route } from '../common/api-route.decorator';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { AdminModelsService } from './admin-models.service';

const modelIdPipe = new ZodValidationPipe(adminModelIdSchema);

/** `weft admin models`: the registry of pulled models, and pulls with their progress (NDJSON). */
@Controller()
export class AdminModelsController {
  constructor(private readonly models: AdminModelsService) {}

  @Route(apiRoutes.adminModels)
  list() {
    return this.models.list();
  }

  @Route(apiRoutes.pullModel)
  async pull(@CurrentAdmin() actor: AdminActor, @Body() body: PullModelBody, @Res() res: Response): Promise<void> {
    await this.models.pull(actor, body, res);
  }

  @Route(apiRoutes.setModel)
  set(@CurrentAdmin() actor: AdminActor, @Param('id', modelIdPipe) id: string, @Body() settings: ModelSettings) {
    return this.models.set(actor, id, settings);
  }

  @Route(apiRoutes.removeModel)
  remove(@CurrentAdmin() actor: AdminActor, @Param('id', modelIdPipe) id: string, @Query() query: { keepFile?: 'true' | 'false' }) {
    return this.models.remove(actor, id, query.keepFile === 'true');
  }
}
