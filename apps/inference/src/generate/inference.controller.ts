import { Controller, type Type } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  Routes,
  inferenceWorkerEmbedSubject,
  inferenceWorkerGenerateSubject,
  type EmbedRequest,
  type EmbedResult,
  type GenerateChunk,
  type GenerateRequest,
  type ListModelsResult,
} from '@weft/contracts';
import { ZodPayloadPipe } from '@weft/messaging';
import type { Observable } from 'rxjs';
import { InferenceService } from './inference.service';
import { RequestCostPipe } from './request-cost.pipe';

/**
 * The worker's request handlers. `generate` listens on the shared subject (queue group: any
 * replica) and on this worker's own subject, where the gateway sends a session whose KV cache
 * this worker holds.
 */
export function createInferenceController(workerId: string): Type<unknown> {
  @Controller()
  class InferenceController {
    constructor(private readonly inference: InferenceService) {}

    @MessagePattern([Routes.inferenceGenerate.subject, inferenceWorkerGenerateSubject(workerId)])
    generate(@Payload(RequestCostPipe, new ZodPayloadPipe(Routes.inferenceGenerate.request)) request: GenerateRequest): Observable<GenerateChunk> {
      return this.inference.generate(request);
    }

    @MessagePattern([Routes.inferenceEmbed.subject, inferenceWorkerEmbedSubject(workerId)])
    embed(@Payload(new ZodPayloadPipe(Routes.inferenceEmbed.request)) request: EmbedRequest): Promise<EmbedResult> {
      return this.inference.embed(request);
    }

    @MessagePattern(Routes.inferenceListModels.subject)
    listModels(@Payload(new ZodPayloadPipe(Routes.inferenceListModels.request)) _request: object): Promise<ListModelsResult> {
      return this.inference.listModels();
    }
  }
  return InferenceController;
}
