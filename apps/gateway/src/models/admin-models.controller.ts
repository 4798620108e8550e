import { Body, Controller, Delete, Get, Param, Patch, Post, Query, Res, UseGuards } from '@nestjs/common';
import { adminModelIdSchema, apiRoutes, modelSettingsSchema, pullModelBodySchema, type ModelSettings, type PullModelBody } from '@weft/contracts';
import type { Response } from 'express';
import { type AdminActor, CurrentAdmin } from '../auth/admin-actor';
import { AdminGuard } from '../auth/admin.guard';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { AdminModelsService } from './admin-models.service';

const modelIdPipe = new ZodValidationPipe(adminModelIdSchema);
const removeQuery = new ZodValidationPipe(apiRoutes.removeModel.query);

/** `weft admin models`: the registry of pulled models, and pulls with their progress (NDJSON). */
@Controller('v1/admin/models')
@UseGuards(AdminGuard)
export class AdminModelsController {
  constructor(private readonly models: AdminModelsService) {}

  @Get()
  list() {
    return this.models.list();
  }

  @Post('pull')
  async pull(@CurrentAdmin() actor: AdminActor, @Body(new ZodValidationPipe(pullModelBodySchema)) body: PullModelBody, @Res() res: Response): Promise<void> {
    await this.models.pull(actor, body, res);
  }

  @Patch(':id')
  set(@CurrentAdmin() actor: AdminActor, @Param('id', modelIdPipe) id: string, @Body(new ZodValidationPipe(modelSettingsSchema)) settings: ModelSettings) {
    return this.models.set(actor, id, settings);
  }

  @Delete(':id')
  remove(@CurrentAdmin() actor: AdminActor, @Param('id', modelIdPipe) id: string, @Query(removeQuery) query: { keepFile?: 'true' | 'false' }) {
    return this.models.remove(actor, id, query.keepFile === 'true');
  }
}
