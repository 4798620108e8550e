import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Routes, type AdminModel, type PullProgress } from '@weft/contracts';
import { ZodPayloadPipe } from '@weft/messaging';
import type { Observable } from 'rxjs';
import type { z } from 'zod';
import { ModelRegistryService } from './model-registry.service';

/** `weft admin models …` as NATS requests; any one worker (queue group) answers. */
@Controller()
export class ModelsAdminController {
  constructor(private readonly registry: ModelRegistryService) {}

  @MessagePattern(Routes.inferenceModelsPull.subject)
  pull(@Payload(new ZodPayloadPipe(Routes.inferenceModelsPull.request)) body: z.infer<typeof Routes.inferenceModelsPull.request>): Observable<PullProgress> {
    return this.registry.pull(body);
  }

  @MessagePattern(Routes.inferenceModelsList.subject)
  list(@Payload(new ZodPayloadPipe(Routes.inferenceModelsList.request)) _request: object): Promise<{ models: AdminModel[] }> {
    return this.registry.list();
  }

  @MessagePattern(Routes.inferenceModelsSet.subject)
  set(@Payload(new ZodPayloadPipe(Routes.inferenceModelsSet.request)) request: z.infer<typeof Routes.inferenceModelsSet.request>): Promise<AdminModel> {
    return this.registry.set(request.id, request.settings);
  }

  @MessagePattern(Routes.inferenceModelsRemove.subject)
  remove(@Payload(new ZodPayloadPipe(Routes.inferenceModelsRemove.request)) request: z.infer<typeof Routes.inferenceModelsRemove.request>) {
    return this.registry.remove(request.id, request.keepFile);
  }
}
