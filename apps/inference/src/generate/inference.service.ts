import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import {
  AppError,
  ErrorCode,
  type GenerateChunk,
  type GenerateRequest,
  type ListModelsResult,
} from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { Observable } from 'rxjs';
import type { InferenceDriver } from '../drivers/inference-driver';
import { INFERENCE_DRIVERS, LOGGER } from '../tokens';

/** Routes a request to the driver that serves its model and turns the result into a stream. */
@Injectable()
export class InferenceService implements OnApplicationShutdown {
  constructor(
    @Inject(INFERENCE_DRIVERS) private readonly drivers: InferenceDriver[],
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  async listModels(): Promise<ListModelsResult> {
    const lists = await Promise.all(this.drivers.map((d) => d.listModels()));
    return { models: lists.flat() };
  }

  /** Text deltas as they are generated, then one `done`; unsubscribing aborts the generation. */
  generate(request: GenerateRequest): Observable<GenerateChunk> {
    return new Observable<GenerateChunk>((subscriber) => {
      const abort = new AbortController();
      this.run(request, abort.signal, (text) => subscriber.next({ type: 'delta', text })).then(
        (chunk) => {
          subscriber.next(chunk);
          subscriber.complete();
        },
        (error: unknown) => subscriber.error(error),
      );
      return () => abort.abort(new AppError(ErrorCode.GenerationFailed, 'Generation cancelled'));
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.drivers.map((d) => d.dispose()));
  }

  private async run(request: GenerateRequest, signal: AbortSignal, onDelta: (text: string) => void) {
    const driver = await this.driverFor(request.model);
    const result = await driver.generate(request.model, { request, onDelta, signal });
    this.log.info(
      {
        model: request.model,
        sessionId: request.sessionId,
        finishReason: result.finishReason,
        usage: result.usage,
        timings: result.timings,
      },
      'generation done',
    );
    return { type: 'done', result } satisfies GenerateChunk;
  }

  private async driverFor(modelId: string): Promise<InferenceDriver> {
    const known: string[] = [];
    for (const driver of this.drivers) {
      const ids = (await driver.listModels()).map((m) => m.id);
      if (ids.includes(modelId)) return driver;
      known.push(...ids);
    }
    throw new AppError(
      ErrorCode.UnknownModel,
      `Unknown model "${modelId}"; this worker serves: ${known.join(', ') || '(none)'}`,
      { model: modelId, known },
    );
  }
}
