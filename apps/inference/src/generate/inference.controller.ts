import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Routes, type GenerateChunk, type GenerateRequest, type ListModelsResult } from '@weft/contracts';
import { ZodPayloadPipe } from '@weft/messaging';
import type { Observable } from 'rxjs';
import { InferenceService } from './inference.service';

@Controller()
export class InferenceController {
  constructor(private readonly inference: InferenceService) {}

  @MessagePattern(Routes.inferenceGenerate.subject)
  generate(
    @Payload(new ZodPayloadPipe(Routes.inferenceGenerate.request)) request: GenerateRequest,
  ): Observable<GenerateChunk> {
    return this.inference.generate(request);
  }

  @MessagePattern(Routes.inferenceListModels.subject)
  listModels(@Payload(new ZodPayloadPipe(Routes.inferenceListModels.request)) _request: object): Promise<ListModelsResult> {
    return this.inference.listModels();
  }
}
