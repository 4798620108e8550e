import { Controller, Module } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { AppError, ErrorCode, type EmbedRequest, type EmbedResult, type GenerateChunk, type GenerateRequest, Routes } from '@weft/contracts';
import { Observable } from 'rxjs';

/** Prompt tokens the stand-in counts for each embedding input. */
export const TOKENS_PER_INPUT = 5;

/**
 * In-test stand-in for the inference workers of the compatible APIs: models that also embed,
 * every request and cancel recorded. An embedding input `hold` runs until its request is
 * cancelled, as a long request on a real worker would.
 */
export const embeddingWorld = {
  embeds: [] as EmbedRequest[],
  generates: [] as GenerateRequest[],
  /** Request ids named on `weft.inference.v1.cancel`. */
  cancelled: [] as string[],
  held: new Map<string, (error: AppError) => void>(),
};

export const EMBEDDING_MODELS = [
  { id: 'tiny', provider: 'scripted', contextSize: 4096, embeddings: true },
  { id: 'secret', provider: 'scripted', contextSize: 4096, embeddings: true },
  { id: 'chat-only', provider: 'scripted', contextSize: 4096 },
  // Announced, but the worker has no such model (a list gone stale): it answers with every model it serves.
  { id: 'ghost', provider: 'scripted', contextSize: 4096, embeddings: true },
] as const;

function unknownHere(model: string): AppError {
  return new AppError(ErrorCode.UnknownModel, `Unknown model "${model}"; this worker serves: tiny, secret, chat-only`, { model, known: ['tiny', 'secret', 'chat-only'] });
}

@Controller()
class EmbeddingWorkersController {
  @MessagePattern(Routes.inferenceListModels.subject)
  listModels() {
    return { models: EMBEDDING_MODELS };
  }

  @MessagePattern(Routes.inferenceEmbed.subject)
  embed(@Payload() request: EmbedRequest): Promise<EmbedResult> | EmbedResult {
    embeddingWorld.embeds.push(request);
    if (request.model === 'ghost') throw unknownHere(request.model);
    if (request.input.includes('hold')) {
      return new Promise((_, reject) => embeddingWorld.held.set(request.requestId ?? '', reject));
    }
    return { embeddings: request.input.map(() => [0.5, 0.25]), promptTokens: TOKENS_PER_INPUT * request.input.length };
  }

  @MessagePattern(Routes.inferenceGenerate.subject)
  generate(@Payload() request: GenerateRequest): Observable<GenerateChunk> {
    embeddingWorld.generates.push(request);
    if (request.model === 'ghost') throw unknownHere(request.model);
    return new Observable<GenerateChunk>((subscriber) => {
      subscriber.next({ type: 'delta', text: 'ok' });
      const usage = { promptTokens: 7, completionTokens: request.countOnly ? 0 : 3 };
      subscriber.next({ type: 'done', result: { text: 'ok', toolCalls: [], finishReason: 'stop', usage, timings: { totalMs: 1 } } });
      subscriber.complete();
    });
  }

  @EventPattern(Routes.inferenceCancel.subject)
  cancel(@Payload() payload: { requestId: string }) {
    embeddingWorld.cancelled.push(payload.requestId);
    embeddingWorld.held.get(payload.requestId)?.(new AppError(ErrorCode.GenerationCancelled, 'Embedding request cancelled by the caller'));
    embeddingWorld.held.delete(payload.requestId);
  }
}

@Module({ controllers: [EmbeddingWorkersController] })
export class EmbeddingWorkersModule {}
