import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode, Routes, inferenceWorkerEmbedSubject, type EmbedRequest, type EmbedResult } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { NatsEventBus, RpcClient } from '@weft/messaging';
import type { FleetRegistry } from './fleet-registry';
import { MAX_ATTEMPTS, type FleetRouter, type Target } from './fleet-router';

export interface FleetEmbedOptions {
  /** The longest wait for the worker's reply. */
  timeoutMs: number;
  /** Aborting rejects at once and tells the worker to stop. */
  signal?: AbortSignal;
}

/** Failures that mean "this worker did not take the request": the next target may. */
const TRY_ELSEWHERE = new Set<string>([ErrorCode.InferenceBusy, ErrorCode.NoResponders]);

/**
 * Embedding requests routed over the fleet: to the least loaded worker serving the model, the
 * queue group last; a busy or absent worker is skipped, and one that stops heartbeating fails the
 * request with INFERENCE.WORKER_LOST at once. A request the caller abandons, or that gets no reply
 * in time, is cancelled on the worker by its request id, as a generation is.
 */
export class FleetEmbeddings {
  constructor(
    private readonly rpc: RpcClient,
    private readonly bus: NatsEventBus,
    private readonly registry: FleetRegistry,
    private readonly router: FleetRouter,
    private readonly log: Logger,
  ) {}

  async embed(request: EmbedRequest, options: FleetEmbedOptions): Promise<EmbedResult> {
    const body = { ...request, requestId: request.requestId ?? randomUUID() };
    let lastError: unknown;
    for (const target of (await this.router.plan(request.model)).slice(0, MAX_ATTEMPTS)) {
      const route = target.kind === 'worker' ? { ...Routes.inferenceEmbed, subject: inferenceWorkerEmbedSubject(target.workerId) } : Routes.inferenceEmbed;
      try {
        return await this.attempt(route, target, body, options);
      } catch (error) {
        if (!(error instanceof AppError && TRY_ELSEWHERE.has(error.code))) throw error;
        this.log.debug({ requestId: body.requestId, target, code: error.code }, 'trying the next inference worker for embeddings');
        lastError = error;
      }
    }
    throw lastError ?? new AppError(ErrorCode.InferenceBusy, 'No inference worker took the request', { model: request.model }, true);
  }

  private async attempt(
    route: typeof Routes.inferenceEmbed,
    target: Target,
    body: EmbedRequest & { requestId: string },
    { timeoutMs, signal }: FleetEmbedOptions,
  ): Promise<EmbedResult> {
    signal?.throwIfAborted();
    let onAbort: (() => void) | undefined;
    let unwatch = () => undefined as unknown;
    const abandoned = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal?.reason instanceof Error ? signal.reason : new AppError(ErrorCode.GenerationCancelled, 'The embedding request was cancelled'));
      signal?.addEventListener('abort', onAbort, { once: true });
      if (target.kind === 'worker') unwatch = this.registry.onLost(target.workerId, reject);
    });
    try {
      return await Promise.race([this.rpc.request(route, body, { timeoutMs }), abandoned]);
    } catch (error) {
      // The worker may still be computing: a refusal of its own (busy, bad input) ran nothing.
      if (signal?.aborted || (error instanceof AppError && error.code === ErrorCode.Timeout)) this.bus.publish(Routes.inferenceCancel, { requestId: body.requestId });
      throw error;
    } finally {
      unwatch();
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }
}
