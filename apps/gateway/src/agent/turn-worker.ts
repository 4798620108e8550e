import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Queues, agentJobSchema } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { RedisKeys } from '../infra/redis-keys';
import { LOGGER } from '../infra/tokens';
import { TurnRunner } from './turn-runner';

const CLOSE_DEADLINE_MS = 10_000;
/** A turn is resumed this many times after its replica died; then it fails. */
const MAX_RESUMES = 3;

/** Runs queued turns in this process; a thin processor in front of the TurnRunner. */
@Injectable()
export class TurnWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private worker?: Worker;
  private connection?: Redis;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings,
    private readonly keys: RedisKeys,
    private readonly runner: TurnRunner,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.connection = new Redis(this.config.REDIS_URL, { maxRetriesPerRequest: null });
    this.worker = new Worker(Queues.agentTurns, (job: Job) => this.process(job), {
      connection: this.connection,
      prefix: this.keys.bullPrefix(),
      concurrency: this.config.AGENT_CONCURRENCY,
      // A replica that dies mid-turn loses its lock; another one moves the job back and resumes it.
      lockDuration: this.config.AGENT_JOB_LOCK_MS,
      stalledInterval: this.config.AGENT_JOB_LOCK_MS,
      maxStalledCount: MAX_RESUMES,
    });
    this.worker.on('error', (err) => this.logger.error({ err }, 'turn worker error'));
    this.worker.on('failed', (job, err) => this.logger.error({ err, jobId: job?.id }, 'turn job failed'));
  }

  private async process(job: Job): Promise<void> {
    const parsed = agentJobSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`Invalid agent job ${job.id}: ${parsed.error.message}`);
    // Planning and chain turns report each subtask or step as the job's progress.
    await this.runner.run(parsed.data, async (report) => {
      await job.updateProgress({ ...report });
    });
  }

  /** Lets running turns finish, up to a deadline; a turn cut off is picked up again as stalled. */
  async onModuleDestroy(): Promise<void> {
    if (!this.worker) return;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), CLOSE_DEADLINE_MS)));
    const outcome = await Promise.race([this.worker.close(), deadline]);
    clearTimeout(timer);
    if (outcome === 'late') {
      this.logger.warn('turns still running at shutdown; closing the worker anyway');
      await this.worker.close(true);
    }
    await this.connection?.quit();
  }
}
