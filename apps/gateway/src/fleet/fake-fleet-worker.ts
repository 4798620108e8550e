import { Controller, Module, type INestMicroservice, type Type } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AppError,
  ErrorCode,
  QueueGroups,
  Routes,
  inferenceWorkerEmbedSubject,
  inferenceWorkerGenerateSubject,
  type EmbedRequest,
  type EmbedResult,
  type GenerateChunk,
  type GenerateRequest,
  type WorkerHeartbeat,
} from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { createNatsMicroservice, NatsEventBus } from '@weft/messaging';
import type { NatsConnection } from 'nats';
import { Observable, type Subscriber } from 'rxjs';

export interface FakeWorkerBehaviour {
  /** Answer INFERENCE.BUSY instead of generating. */
  busy?: boolean;
  /** Stream one delta and then nothing more, as a worker that died mid-generation. */
  hang?: boolean;
  deltas?: number;
  /**
   * Streams these deltas, a model's deterministic reply, continuing after `continueFrom` as a
   * worker that takes over a lost generation does; the result's text is the whole reply.
   */
  reply?: string[];
  /** With `reply`: stream this many of its deltas, then nothing more (a worker about to die). */
  stallAfter?: number;
}

/**
 * A stand-in inference worker for fleet tests (the real one is another app): it speaks the
 * worker's protocol — generate on the shared and its own subject, heartbeats, cancels — and
 * records what it was asked.
 */
export class FakeFleetWorker {
  readonly requests: GenerateRequest[] = [];
  readonly embedRequests: EmbedRequest[] = [];
  readonly cancelled: string[] = [];
  behaviour: FakeWorkerBehaviour = {};
  heartbeats = true;
  private timer?: NodeJS.Timeout;
  /** One process's start: a heartbeat with another one says the worker restarted. */
  private readonly startedAt = new Date().toISOString();

  private constructor(
    readonly workerId: string,
    private readonly app: INestMicroservice,
    private readonly bus: NatsEventBus,
    private readonly models: WorkerHeartbeat['models'],
    private readonly intervalMs: number,
  ) {}

  static async start(natsUrl: string, workerId: string, options: { models?: string[]; intervalMs?: number; announce?: boolean } = {}): Promise<FakeFleetWorker> {
    const log = createLogger('fake-fleet-worker', 'silent');
    const holder: { worker?: FakeFleetWorker } = {};
    const app = await createNatsMicroservice(fakeWorkerModule(workerId, () => holder.worker), { nats: natsUrl, queue: QueueGroups.inference, logger: log });
    await app.listen();
    await app.unwrap<NatsConnection>().flush();
    const bus = await NatsEventBus.connect(natsUrl, 'fake-fleet-worker', log);
    const models = (options.models ?? ['tiny']).map((id) => ({
      id,
      provider: 'llama' as const,
      contextSize: 2048,
      loaded: true,
      freeSequences: 2,
      queued: 0,
      maxQueue: 4,
      cachedSessions: [],
    }));
    const worker = new FakeFleetWorker(workerId, app, bus, models, options.intervalMs ?? 100);
    holder.worker = worker;
    bus.subscribe(Routes.inferenceCancel, ({ requestId }) => worker.cancelled.push(requestId));
    if (options.announce !== false) worker.beat();
    await bus.flush();
    return worker;
  }

  /** Stops heartbeating and leaves the NATS server without a goodbye, like a killed process. */
  async kill(): Promise<void> {
    this.heartbeats = false;
    clearTimeout(this.timer);
    await this.app.close();
    await this.bus.close();
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    if (this.heartbeats) this.bus.publish(Routes.inferenceWorkerAnnounced, this.heartbeat('stopped'));
    this.heartbeats = false;
    await this.bus.close();
    await this.app.close();
  }

  generate(request: GenerateRequest): Observable<GenerateChunk> {
    this.requests.push(request);
    const { busy, hang, deltas = 3, reply, stallAfter } = this.behaviour;
    return new Observable<GenerateChunk>((subscriber) => {
      if (busy) {
        subscriber.error(new AppError(ErrorCode.InferenceBusy, `${this.workerId} is busy`, {}, true));
        return;
      }
      if (reply) return this.streamReply(reply, request.continueFrom ?? '', stallAfter, subscriber);
      subscriber.next({ type: 'delta', text: `${this.workerId}:` });
      if (hang) return;
      for (let i = 1; i < deltas; i++) subscriber.next({ type: 'delta', text: ` ${i}` });
      subscriber.next({
        type: 'done',
        result: {
          text: 'ok',
          toolCalls: [],
          finishReason: 'stop',
          usage: { promptTokens: 5, completionTokens: deltas, cachedTokens: 0 },
          timings: { totalMs: 1 },
          workerId: this.workerId,
        },
      });
      subscriber.complete();
    });
  }

  private streamReply(reply: string[], continueFrom: string, stallAfter: number | undefined, subscriber: Subscriber<GenerateChunk>): () => void {
    let skip = continueFrom.length;
    const rest: string[] = [];
    for (const delta of reply) {
      if (skip < delta.length) rest.push(delta.slice(skip));
      skip = Math.max(skip - delta.length, 0);
    }
    const sent = stallAfter === undefined ? rest : rest.slice(0, stallAfter);
    // One delta a tick, so that each leaves as a message of its own.
    const timer = setInterval(() => {
      const next = sent.shift();
      if (next !== undefined) return subscriber.next({ type: 'delta', text: next });
      if (stallAfter !== undefined) return clearInterval(timer);
      clearInterval(timer);
      subscriber.next({
        type: 'done',
        result: {
          text: reply.join(''),
          toolCalls: [],
          finishReason: 'stop',
          usage: { promptTokens: 5, completionTokens: reply.length, cachedTokens: 0 },
          timings: { totalMs: 1 },
          workerId: this.workerId,
        },
      });
      subscriber.complete();
    }, 5);
    return () => clearInterval(timer);
  }

  /** One vector per input; `hang` never answers, `busy` refuses, as for a generation. */
  embed(request: EmbedRequest): Promise<EmbedResult> {
    this.embedRequests.push(request);
    if (this.behaviour.busy) return Promise.reject(new AppError(ErrorCode.InferenceBusy, `${this.workerId} is busy`, {}, true));
    if (this.behaviour.hang) return new Promise<never>(() => undefined);
    return Promise.resolve({ embeddings: request.input.map(() => [1]), promptTokens: request.input.length, workerId: this.workerId });
  }

  private beat(): void {
    if (!this.heartbeats) return;
    this.bus.publish(Routes.inferenceWorkerAnnounced, this.heartbeat('ready'));
    this.timer = setTimeout(() => this.beat(), this.intervalMs);
  }

  private heartbeat(status: WorkerHeartbeat['status']): WorkerHeartbeat {
    const now = new Date().toISOString();
    return { workerId: this.workerId, status, intervalMs: this.intervalMs, startedAt: this.startedAt, sentAt: now, inFlight: 0, models: this.models };
  }
}

function fakeWorkerModule(workerId: string, worker: () => FakeFleetWorker | undefined): Type<unknown> {
  @Controller()
  class FakeWorkerController {
    @MessagePattern([Routes.inferenceGenerate.subject, inferenceWorkerGenerateSubject(workerId)])
    generate(@Payload() request: GenerateRequest): Observable<GenerateChunk> {
      const target = worker();
      if (!target) throw new AppError(ErrorCode.Internal, 'fake worker not ready');
      return target.generate(request);
    }

    @MessagePattern([Routes.inferenceEmbed.subject, inferenceWorkerEmbedSubject(workerId)])
    embed(@Payload() request: EmbedRequest): Promise<EmbedResult> {
      const target = worker();
      if (!target) throw new AppError(ErrorCode.Internal, 'fake worker not ready');
      return target.embed(request);
    }
  }
  @Module({ controllers: [FakeWorkerController] })
  class FakeWorkerModule {}
  return FakeWorkerModule;
}
