import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import {
  AppError,
  ErrorCode,
  type GenerateChunk,
  type EmbedRequest,
  type EmbedResult,
  type GenerateRequest,
  type GenerateResult,
  type ListModelsResult,
  type WorkerHeartbeat,
  type WorkerModelStatus,
} from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { Observable } from 'rxjs';
import type { GenerateCall, InferenceDriver } from '../drivers/inference-driver';
import { assertContinuable } from './continuation';
import { DeltaCoalescer } from './delta-coalescer';
import { SharedGeneration } from './shared-generation';
import { estimatePromptTokens } from '../remote/remote-prompt';
import type { InferenceMetrics } from '../metrics/inference-metrics';
import { INFERENCE_DRIVERS, INFERENCE_METRICS, LOGGER, WORKER_IDENTITY, type WorkerIdentity } from '../tokens';

/** Where a generation's deltas and load reports go. */
type GenerationListener = Pick<GenerateCall, 'onDelta' | 'onModelLoading'>;

interface InFlight {
  abort: AbortController;
  done: Promise<unknown>;
  shared: SharedGeneration;
}

/** An embedding request running here: a cancel or a drain aborts it between two inputs. */
interface RunningEmbed {
  requestId: string;
  abort: AbortController;
  done: Promise<unknown>;
}

/**
 * Routes a request to the driver that serves its model and turns the result into a stream.
 * Keeps every running generation by request id, so a cancel message or a drain can end it and
 * a retry of the same id joins it (the gateway retries when it lost sight of this worker).
 */
@Injectable()
export class InferenceService implements OnApplicationShutdown {
  private readonly inFlight = new Map<string, InFlight>();
  private readonly embeds = new Set<RunningEmbed>();
  private draining = false;

  constructor(
    @Inject(INFERENCE_DRIVERS) private readonly drivers: InferenceDriver[],
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(INFERENCE_METRICS) private readonly metrics: InferenceMetrics,
    @Inject(WORKER_IDENTITY) private readonly worker: WorkerIdentity,
  ) {
    metrics.attach(this);
  }

  get running(): number {
    return this.inFlight.size;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  async listModels(): Promise<ListModelsResult> {
    const lists = await Promise.all(this.drivers.map((d) => d.listModels()));
    return { models: lists.flat() };
  }

  async status(): Promise<WorkerModelStatus[]> {
    const lists = await Promise.all(this.drivers.map((d) => d.status()));
    return lists.flat();
  }

  /** `listener` hears of every driver's model loads and unloads. */
  onModelsChanged(listener: () => void): void {
    for (const driver of this.drivers) driver.onModelsChanged?.(listener);
  }

  /** The loaded models' memory budget and use (the llama driver's). */
  memory(): WorkerHeartbeat['memory'] {
    for (const driver of this.drivers) {
      const memory = driver.memory?.();
      if (memory) return memory;
    }
    return undefined;
  }

  /** The first accelerator a driver reports (one worker per GPU). */
  async gpu(): Promise<WorkerHeartbeat['gpu']> {
    for (const driver of this.drivers) {
      const gpu = await driver.gpu?.();
      if (gpu) return gpu;
    }
    return undefined;
  }

  /**
   * Text deltas as they are generated, then one `done`. The same request id while it runs here
   * joins the running generation (idempotent retries); it ends when its last subscriber leaves.
   */
  generate(request: GenerateRequest): Observable<GenerateChunk> {
    return new Observable<GenerateChunk>((subscriber) => {
      const requestId = request.requestId ?? `internal-${randomUUID()}`;
      const running = this.inFlight.get(requestId);
      if (running) {
        this.log.info({ requestId, sessionId: request.sessionId, attached: running.shared.attached }, 'a retry of a running generation joins it');
        return running.shared.attach(subscriber);
      }
      if (this.draining) {
        subscriber.error(new AppError(ErrorCode.InferenceBusy, `Worker ${this.worker.workerId} is draining`, { draining: true }, true));
        return undefined;
      }
      const abort = new AbortController();
      const shared = new SharedGeneration(() => abort.abort(new AppError(ErrorCode.GenerationCancelled, 'Generation cancelled', { requestId })));
      const detach = shared.attach(subscriber);
      // Forgotten before its subscribers hear the end, so a later retry starts afresh instead of
      // joining a generation that has nothing more to say.
      const listener: GenerationListener = {
        onDelta: (text) => shared.delta(text),
        onModelLoading: ({ progress, elapsedMs }) => shared.loading({ type: 'model.loading', model: request.model, progress, elapsedMs }),
      };
      const done = this.run(request, abort.signal, listener).then(
        (chunk) => {
          this.inFlight.delete(requestId);
          shared.finish(chunk);
        },
        (error: unknown) => {
          this.inFlight.delete(requestId);
          shared.fail(error);
        },
      );
      this.inFlight.set(requestId, { abort, done, shared });
      return detach;
    });
  }

  /** One vector per input; cancelled like a generation, by its request id. */
  async embed(request: EmbedRequest): Promise<EmbedResult> {
    if (this.draining) throw new AppError(ErrorCode.InferenceBusy, `Worker ${this.worker.workerId} is draining`, { draining: true }, true);
    const driver = await this.driverFor(request.model);
    if (!driver.embed) {
      throw new AppError(ErrorCode.InvalidRequest, `Model "${request.model}" does not serve embeddings`, { model: request.model });
    }
    const requestId = request.requestId ?? `internal-${randomUUID()}`;
    const abort = new AbortController();
    const done = driver.embed(request.model, { input: request.input, user: request.user, signal: abort.signal });
    const running: RunningEmbed = { requestId, abort, done };
    this.embeds.add(running);
    try {
      return { ...(await done), workerId: this.worker.workerId };
    } catch (error) {
      if (abort.signal.aborted) this.log.info({ requestId, model: request.model, userId: request.user?.id }, 'embedding request cancelled');
      throw error;
    } finally {
      this.embeds.delete(running);
    }
  }

  /** Aborts the generation with this id if it runs here; its sequence is free again at once. */
  cancel(requestId: string): boolean {
    const embeds = [...this.embeds].filter((e) => e.requestId === requestId);
    for (const embed of embeds) embed.abort.abort(new AppError(ErrorCode.GenerationCancelled, 'Embedding request cancelled by the caller', { requestId }));
    const running = this.inFlight.get(requestId);
    if (!running) return embeds.length > 0;
    this.log.info({ requestId }, 'cancelling generation');
    running.abort.abort(new AppError(ErrorCode.GenerationCancelled, 'Generation cancelled by the caller', { requestId }));
    return true;
  }

  /**
   * Stops taking requests (they get INFERENCE.BUSY, so the gateway tries another worker) and
   * waits for the running ones; those still running at the deadline are cancelled.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    const pending = [...this.inFlight.values(), ...this.embeds];
    if (pending.length === 0) return;
    this.log.info({ inFlight: pending.length, timeoutMs }, 'draining');
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const outcome = await Promise.race([Promise.allSettled(pending.map((p) => p.done)), deadline]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      for (const [requestId, running] of this.inFlight) {
        running.abort.abort(new AppError(ErrorCode.GenerationCancelled, 'The worker shut down before the generation ended', { requestId }, true));
      }
      for (const { requestId, abort } of this.embeds) abort.abort(new AppError(ErrorCode.GenerationCancelled, 'The worker shut down before the embeddings were done', { requestId }, true));
      await Promise.allSettled([...this.inFlight.values(), ...this.embeds].map((p) => p.done));
    }
  }

  async onApplicationShutdown(): Promise<void> {
    for (const running of [...this.inFlight.values(), ...this.embeds]) {
      running.abort.abort(new AppError(ErrorCode.GenerationCancelled, 'The worker shut down', {}, true));
    }
    await Promise.allSettled([...this.inFlight.values(), ...this.embeds].map((p) => p.done));
    await Promise.all(this.drivers.map((d) => d.dispose()));
  }

  private async run(request: GenerateRequest, signal: AbortSignal, { onDelta, onModelLoading }: GenerationListener): Promise<GenerateChunk> {
    const log = this.log.child({ model: request.model, sessionId: request.sessionId, requestId: request.requestId, userId: request.user?.id });
    try {
      const driver = await this.driverFor(request.model);
      assertContinuable(request);
      if (request.continueFrom !== undefined && !driver.continuesReplies) {
        throw new AppError(ErrorCode.InvalidRequest, `Model "${request.model}" cannot continue a reply from a prefix`, { model: request.model, field: 'continueFrom' });
      }
      if (request.countOnly) return { type: 'done', result: await countPrompt(driver, request) };
      const deltas = new DeltaCoalescer(driver.streamIntervalMs?.(request.model) ?? 0, onDelta);
      let lastDeltaAt: number | undefined;
      const timedDelta = (text: string) => {
        const now = performance.now();
        if (lastDeltaAt !== undefined) this.metrics.interTokenGap(request.model, (now - lastDeltaAt) / 1000);
        lastDeltaAt = now;
        deltas.push(text);
      };
      const generated = await driver.generate(request.model, { request, onDelta: timedDelta, signal, onModelLoading }).finally(() => deltas.flush());
      const result = { ...generated, workerId: this.worker.workerId };
      this.metrics.completed(request.model, result);
      log.info({ finishReason: result.finishReason, usage: result.usage, timings: result.timings }, 'generation done');
      return { type: 'done', result };
    } catch (error) {
      const code = error instanceof AppError ? error.code : ErrorCode.Internal;
      this.metrics.failed(request.model, code);
      if (code === ErrorCode.GenerationCancelled) log.info('generation cancelled');
      throw error;
    }
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

/** A `countOnly` request: the prompt's size and nothing generated. */
async function countPrompt(driver: InferenceDriver, request: GenerateRequest): Promise<GenerateResult> {
  const started = performance.now();
  const promptTokens = driver.countTokens
    ? await driver.countTokens(request.model, request)
    : estimatePromptTokens(request.messages, request.tools);
  return {
    text: '',
    toolCalls: [],
    finishReason: 'stop',
    usage: { promptTokens, completionTokens: 0, cachedTokens: 0, evaluatedTokens: 0 },
    timings: { totalMs: performance.now() - started },
  };
}
