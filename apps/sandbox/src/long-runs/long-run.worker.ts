import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import { AppError, Queues, Routes, sandboxJobSchema } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Subscription } from 'nats';
import { SandboxMetrics } from '../metrics/sandbox-metrics';
import { LOGGER, SANDBOX_CONFIG } from '../tokens';
import { LongRunService } from './long-run.service';
import { RunCancellations } from './run-cancellations';
import { NatsEventBus } from '@weft/messaging';
import { SpanKind, contextFromCarrier, inSpan } from '@weft/telemetry';

/** How long a shutdown lets long runs finish before it kills them. */
const CLOSE_DEADLINE_MS = 10_000;

/**
 * Takes long runs from the queue (when REDIS_URL is set) and listens for their cancels; a thin
 * processor in front of LongRunService.
 */
@Injectable()
export class LongRunWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private worker?: Worker;
  /** Read by the metrics only: the queue's job counts. */
  private queue?: Queue;
  private connection?: Redis;
  private cancelSubscription?: Subscription;

  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
    private readonly runs: LongRunService,
    private readonly cancellations: RunCancellations,
    private readonly bus: NatsEventBus,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(SandboxMetrics) private readonly metrics: SandboxMetrics,
  ) {}

  onApplicationBootstrap(): void {
    this.cancelSubscription = this.bus.subscribe(Routes.sandboxCancel, ({ runId }) => this.cancellations.cancel(runId));
    if (!this.config.REDIS_URL) {
      this.logger.info('REDIS_URL is not set: this sandbox worker takes no long runs');
      return;
    }
    this.connection = new Redis(this.config.REDIS_URL, { maxRetriesPerRequest: null });
    this.worker = new Worker(Queues.sandboxRuns, (job: Job) => this.process(job), {
      connection: this.connection,
      prefix: `${this.config.REDIS_KEY_PREFIX}bull`,
      concurrency: this.config.SANDBOX_LONG_RUN_CONCURRENCY,
      // A run whose worker died is failed, never run again: commands are not idempotent. The
      // gateway stops waiting on its own deadline either way.
      maxStalledCount: 0,
    });
    this.worker.on('error', (err) => this.logger.error({ err }, 'long-run worker error'));
    const queue = new Queue(Queues.sandboxRuns, { connection: this.connection, prefix: `${this.config.REDIS_KEY_PREFIX}bull` });
    this.queue = queue;
    this.metrics.watch({ longRunJobs: () => queue.getJobCounts('waiting', 'active', 'delayed') });
  }

  private async process(job: Job): Promise<unknown> {
    const parsed = sandboxJobSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`Invalid sandbox job ${job.id}: ${parsed.error.message}`);
    this.metrics.longRunWaited((Date.now() - job.timestamp) / 1000);
    try {
      const { trace } = parsed.data;
      if (!trace) return await this.runs.run(parsed.data);
      // In the trace of the tool call that queued the run.
      const span = { kind: SpanKind.CONSUMER, parent: contextFromCarrier(trace), attributes: { 'messaging.system': 'bullmq' } };
      return await inSpan(`${Queues.sandboxRuns} process`, span, () => this.runs.run(parsed.data));
    } catch (error) {
      if (error instanceof AppError && !error.retryable) throw new UnrecoverableError(`${error.code}: ${error.message}`);
      throw error;
    }
  }

  /** Before the janitor removes this worker's containers: runs get a moment, then are killed. */
  async beforeApplicationShutdown(): Promise<void> {
    this.cancelSubscription?.unsubscribe();
    if (this.worker) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), CLOSE_DEADLINE_MS)));
      const closing = this.worker.close();
      if ((await Promise.race([closing, deadline])) === 'late') {
        this.logger.warn('long runs still running at shutdown; killing them');
        this.cancellations.cancelAll();
        await closing;
      }
      clearTimeout(timer);
      await this.queue?.close();
      await this.connection?.quit();
    }
    await this.bus.close();
  }
}
