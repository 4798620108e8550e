import { randomUUID } from 'node:crypto';
import {
  AppError,
  ErrorCode,
  Routes,
  inferenceWorkerGenerateSubject,
  type GenerateChunk,
  type GenerateRequest,
} from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { RpcClient } from '@weft/messaging';
import { NatsEventBus } from '@weft/messaging';
import type { FleetRegistry } from './fleet-registry';
import { MAX_ATTEMPTS, type AffinityStore, type FleetRouter, type Target } from './fleet-router';
import { mayResume, notTaken, resumedRequest, type GenerationResumed } from './generation-resume';
import { abortableSleep } from '../common/abortable-sleep';

const FIRST_RESUME_DELAY_MS = 250;
const MAX_RESUME_DELAY_MS = 2000;

export interface FleetGenerateOptions {
  /** The longest wait for the next streamed message. */
  timeoutMs: number;
  /** Aborting ends the stream and tells the worker to stop. */
  signal?: AbortSignal;
  /** Told, before the next chunk, that the generation lost its worker and goes on on another. */
  onResumed?: (resumed: GenerationResumed) => void;
}

/** What the agent's inference port needs from the fleet. */
export interface FleetInference {
  generate(request: GenerateRequest, options: FleetGenerateOptions): AsyncIterable<GenerateChunk>;
}

/** Failures that mean "this worker did not take the request": the next target may. */
const TRY_ELSEWHERE = new Set<string>([ErrorCode.InferenceBusy, ErrorCode.NoResponders, ErrorCode.WorkerLost]);

/**
 * Failures of this side while the worker may still be generating (no reply in time, a message
 * that did not parse): the attempt sends a cancel. Any other error is the worker's own answer,
 * so this attempt runs nothing there, and a cancel for its request id could only end another
 * run of the same id, the one a refused retry found still running.
 */
const STILL_RUNNING_THERE = new Set<string>([ErrorCode.Timeout, ErrorCode.ValidationFailed]);

/**
 * Generations routed over the fleet: to the worker that holds the session's KV cache when it can
 * take the request, else to the least loaded one, else to the queue group. A busy or vanished
 * worker is skipped before anything streamed; once tokens flow, a worker that stops
 * heartbeating loses the attempt at once (INFERENCE.WORKER_LOST), and the generation goes on on
 * another worker, or the same one restarted, within `resumeWaitMs`: the same request continuing
 * from the text already streamed (`continueFrom`), so the stream goes on with no delta repeated
 * or lost. The serving worker is recorded as the session's affinity. Every attempt of one
 * request carries the same request id: a retry that reaches a worker still running the request
 * joins that run there; a resumed one has a new id.
 */
export class FleetInferenceClient implements FleetInference {
  constructor(
    private readonly rpc: RpcClient,
    private readonly bus: NatsEventBus,
    private readonly registry: FleetRegistry,
    private readonly router: FleetRouter,
    private readonly affinity: AffinityStore,
    private readonly log: Logger,
    /** How long a generation that lost its worker mid-stream waits for another to take it over (AGENT_INFERENCE_BUSY_WAIT_MS). */
    private readonly resumeWaitMs = 0,
  ) {}

  async *generate(request: GenerateRequest, options: FleetGenerateOptions): AsyncGenerator<GenerateChunk> {
    let body = { ...request, requestId: request.requestId ?? randomUUID() };
    let streamed = '';
    let resumes = 0;
    let lost: { error: AppError; at: number } | undefined;
    let delayMs = FIRST_RESUME_DELAY_MS;
    for (;;) {
      const progress = { started: false };
      let taken = false;
      try {
        for await (const chunk of this.route(body, options, progress)) {
          if (lost && !taken) options.onResumed?.({ streamedChars: streamed.length, pausedMs: performance.now() - lost.at });
          taken = true;
          if (chunk.type === 'delta') streamed += chunk.text;
          yield chunk;
        }
        return;
      } catch (error) {
        if (options.signal?.aborted) throw error;
        if (progress.started || taken) {
          if (!mayResume(error, request, streamed, resumes)) throw error;
          // A worker only silent (a stalled machine) may still be running it.
          this.bus.publish(Routes.inferenceCancel, { requestId: body.requestId });
          lost = { error, at: performance.now() };
          resumes += 1;
          delayMs = FIRST_RESUME_DELAY_MS;
          body = resumedRequest(request, streamed);
          this.log.warn({ requestId: body.requestId, sessionId: request.sessionId, streamedChars: streamed.length, resumes }, 'inference worker lost mid-stream: resuming the generation on another');
          continue;
        }
        // Before anything streamed: the caller's own wait (AGENT_INFERENCE_BUSY_WAIT_MS) handles a first attempt.
        if (!lost) throw error;
        if (!notTaken(error) || performance.now() + delayMs > lost.at + this.resumeWaitMs) {
          this.log.warn({ requestId: body.requestId, err: error }, 'no inference worker took the lost generation over');
          throw lost.error;
        }
        await abortableSleep(delayMs * (0.5 + Math.random() / 2), options.signal);
        if (options.signal?.aborted) return;
        delayMs = Math.min(delayMs * 2, MAX_RESUME_DELAY_MS);
      }
    }
  }

  /** One request to the targets the router plans, skipping those that did not take it. */
  private async *route(body: GenerateRequest & { requestId: string }, options: FleetGenerateOptions, progress: { started: boolean }): AsyncGenerator<GenerateChunk> {
    const targets = (await this.router.plan(body.model, body.sessionId)).slice(0, MAX_ATTEMPTS);
    let lastError: unknown;
    for (const target of targets) {
      if (options.signal?.aborted) return;
      try {
        yield* this.attempt(body, target, options, progress);
        return;
      } catch (error) {
        if (progress.started || !(error instanceof AppError) || !TRY_ELSEWHERE.has(error.code)) throw error;
        this.log.debug({ requestId: body.requestId, target, code: error.code }, 'trying the next inference worker');
        lastError = error;
      }
    }
    throw lastError ?? new AppError(ErrorCode.InferenceBusy, 'No inference worker took the request', { model: body.model }, true);
  }

  private async *attempt(
    body: GenerateRequest & { requestId: string },
    target: Target,
    options: FleetGenerateOptions,
    progress: { started: boolean },
  ): AsyncGenerator<GenerateChunk> {
    const abort = new AbortController();
    let lost: AppError | undefined;
    const onAbort = () => abort.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const unwatch =
      target.kind === 'worker'
        ? this.registry.onLost(target.workerId, (error) => {
            lost = error;
            abort.abort(error);
          })
        : () => undefined;
    const route =
      target.kind === 'worker' ? { ...Routes.inferenceGenerate, subject: inferenceWorkerGenerateSubject(target.workerId) } : Routes.inferenceGenerate;
    let finished = false;
    let mayRun = true;
    try {
      for await (const chunk of this.rpc.stream(route, body, { timeoutMs: options.timeoutMs, signal: abort.signal })) {
        // A worker still loading the model has produced nothing: its failure may be tried elsewhere.
        if (chunk.type !== 'model.loading') progress.started = true;
        if (chunk.type === 'done') {
          finished = true;
          await this.remember(body.sessionId, chunk.result.workerId ?? (target.kind === 'worker' ? target.workerId : undefined));
        }
        yield chunk;
      }
      if (lost) throw lost;
    } catch (error) {
      if (lost) throw lost;
      if (error instanceof AppError && !STILL_RUNNING_THERE.has(error.code)) mayRun = false;
      throw error;
    } finally {
      unwatch();
      options.signal?.removeEventListener('abort', onAbort);
      if (!finished && mayRun && !lost) this.bus.publish(Routes.inferenceCancel, { requestId: body.requestId });
    }
  }

  private async remember(sessionId: string | undefined, workerId: string | undefined): Promise<void> {
    if (!sessionId || !workerId) return;
    await this.affinity.recordAffinity(sessionId, workerId).catch((err: unknown) => this.log.warn({ err, sessionId }, 'could not record session affinity'));
  }
}
