import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import {
  AppError,
  ErrorCode,
  type ExecRequest,
  type ExecResult,
  Jobs,
  type LongRunJob,
  Queues,
  Routes,
  longRunJobSchema,
  runOutputMessageSchema,
  sandboxRunOutputSubject,
} from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { NatsConnection, Subscription } from 'nats';
import { newId } from '../../common/ids';
import type { GatewaySettings } from '../../config';
import { RedisKeys } from '../../infra/redis-keys';
import type { ExecOptions } from '../../agent-core/ports';
import { currentTraceCarrier } from '@weft/telemetry';

/** Past a run's own timeout, how long the gateway waits for its result before it gives up on the worker. */
const RESULT_GRACE_MS = 30_000;
/** How long the answer to "does any sandbox worker take long runs?" is reused. */
const WORKERS_CHECK_MS = 10_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The gateway's side of long runs: queues the run (BullMQ), relays its output from the run's
 * NATS subject as it comes, and returns its result. Aborting the signal publishes
 * `weft.sandbox.v1.cancel`, so the worker kills the container, and drops the job if no worker
 * took it yet. A worker that dies mid-run cannot hold the caller: it waits at most the queue
 * allowance, then the run's timeout plus a grace.
 */
@Injectable()
export class LongRunClient implements OnApplicationShutdown {
  private workersCheck?: { at: number; available: Promise<boolean> };

  private constructor(
    private readonly queue: Queue,
    private readonly redis: Redis,
    private readonly nats: NatsConnection,
    private readonly queueWaitMs: number,
    private readonly log: Logger,
  ) {}

  /** On the gateway's one NATS connection, which the infra module closes. */
  static create(config: GatewaySettings, keys: RedisKeys, nats: NatsConnection, log: Logger): LongRunClient {
    const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue(Queues.sandboxRuns, { connection: redis, prefix: keys.bullPrefix() });
    return new LongRunClient(queue, redis, nats, config.SANDBOX_LONG_RUN_QUEUE_MS, log);
  }

  /**
   * Whether any sandbox worker listens on the queue (one without REDIS_URL takes no long runs);
   * when none does, long runs take the request/reply path as they did before the queue.
   */
  available(): Promise<boolean> {
    const now = Date.now();
    if (!this.workersCheck || now - this.workersCheck.at > WORKERS_CHECK_MS) {
      const available = this.queue.getWorkersCount().then(
        (count) => count > 0,
        (error: unknown) => {
          // A Redis without CLIENT LIST cannot say: queue, and let the deadlines bound the wait.
          this.log.warn({ err: error }, 'could not count the long-run workers');
          return true;
        },
      );
      this.workersCheck = { at: now, available };
    }
    return this.workersCheck.available;
  }

  async run(request: ExecRequest & { timeoutMs: number }, options: ExecOptions = {}): Promise<ExecResult> {
    const runId = newId('run');
    const job: LongRunJob = longRunJobSchema.parse({
      kind: Jobs.longRun,
      runId,
      request,
      sessionId: options.sessionId,
      turnId: options.turnId,
      trace: currentTraceCarrier(),
    });
    if (options.signal?.aborted) throw cancelled();
    const subscription = this.nats.subscribe(sandboxRunOutputSubject(runId));
    try {
      await this.nats.flush();
      const outcome = this.follow(runId, subscription, options);
      try {
        await this.queue.add(Jobs.longRun, job, {
          jobId: runId,
          // Never retried: a command is not idempotent.
          attempts: 1,
          removeOnComplete: { count: 1000 },
          removeOnFail: { count: 1000 },
        });
      } catch (error) {
        subscription.unsubscribe();
        await outcome.catch(() => undefined);
        throw error;
      }
      return await outcome;
    } finally {
      subscription.unsubscribe();
    }
  }

  /** Resolves with the run's result; rejects on its failure, a cancel, or a deadline. */
  private follow(runId: string, subscription: Subscription, options: ExecOptions): Promise<ExecResult> {
    return new Promise<ExecResult>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const giveUp = (error: AppError) => {
        if (settled) return;
        this.stop(runId);
        settle(() => reject(error));
      };
      const arm = (ms: number, why: string) => {
        clearTimeout(timer);
        timer = setTimeout(() => giveUp(new AppError(ErrorCode.SandboxUnavailable, why, { runId }, true)), ms);
      };
      const onAbort = () => giveUp(cancelled());
      const settle = (done: () => void) => {
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        subscription.unsubscribe();
        done();
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      arm(this.queueWaitMs, `No sandbox worker took the long run within ${this.queueWaitMs} ms`);
      void (async () => {
        for await (const raw of subscription) {
          const parsed = runOutputMessageSchema.safeParse(parseJson(decoder.decode(raw.data)));
          if (!parsed.success) {
            this.log.warn({ runId }, 'dropping an invalid long-run message');
            continue;
          }
          const message = parsed.data;
          switch (message.type) {
            case 'started':
              arm(message.timeoutMs + RESULT_GRACE_MS, `The sandbox worker running ${runId} stopped reporting; it may have died`);
              break;
            case 'chunk':
              options.onOutput?.(message.stream, message.text);
              break;
            case 'result':
              return settle(() => resolve(message.result));
            case 'failed':
              return settle(() => reject(AppError.fromWire(message.error)));
          }
        }
        giveUp(new AppError(ErrorCode.SandboxUnavailable, 'The long run\'s output stream closed before its result', { runId }, true));
      })().catch((error: unknown) => giveUp(new AppError(ErrorCode.SandboxUnavailable, 'Lost the long run\'s output stream', { runId }, true, { cause: error })));
    });
  }

  /** Tells every sandbox worker to kill the run, and drops its job if none took it yet. */
  private stop(runId: string): void {
    if (!this.nats.isClosed() && !this.nats.isDraining()) {
      this.nats.publish(Routes.sandboxCancel.subject, encoder.encode(JSON.stringify(Routes.sandboxCancel.request.parse({ runId }))));
    }
    // A job a worker holds is locked and stays; the cancel above reaches that worker.
    void this.queue.remove(runId).catch((error: unknown) => this.log.debug({ err: error, runId }, 'long-run job not removed'));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close();
    await this.redis.quit();
  }
}

function cancelled(): AppError {
  return new AppError(ErrorCode.SandboxCancelled, 'The run was cancelled');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
