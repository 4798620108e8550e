import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Queues, agentJobSchema } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { DelayedError, type Job, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { RedisKeys } from '../infra/redis-keys';
import { LOGGER } from '../infra/tokens';
import { PermissionRequestsRepository } from '../permissions/permission-requests.repository';
import { TurnQueue } from '../turns/turn-queue';
import { type TurnRunOutcome, TurnRunner } from './turn-runner';
import { traceTurnRun } from './turn-tracing';

const CLOSE_DEADLINE_MS = 10_000;
/** A turn is resumed this many times after its replica died; then it fails. */
const MAX_RESUMES = 3;
/** A parked turn wakes this long after its question's deadline, so the run finds it timed out. */
const WAKE_MARGIN_MS = 250;

/** Runs queued turns in this process; a thin processor in front of the TurnRunner. */
@Injectable()
export class TurnWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private worker?: Worker;
  private connection?: Redis;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings,
    private readonly keys: RedisKeys,
    private readonly runner: TurnRunner,
    private readonly queue: TurnQueue,
    private readonly permissions: PermissionRequestsRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.connection = new Redis(this.config.REDIS_URL, { maxRetriesPerRequest: null });
    this.worker = new Worker(Queues.agentTurns, (job: Job, token?: string) => this.process(job, token), {
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

  private async process(job: Job, token?: string): Promise<void> {
    const parsed = agentJobSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`Invalid agent job ${job.id}: ${parsed.error.message}`);
    // Planning and chain turns report each subtask or step as the job's progress.
    const outcome = await traceTurnRun(parsed.data, job.timestamp, () =>
      this.runner.run(
        parsed.data,
        async (report) => {
          await job.updateProgress({ ...report });
        },
        { parkAfterMs: this.config.PERMISSION_PARK_AFTER_MS },
      ),
    );
    if (outcome.kind === 'parked') await this.park(job, token, outcome);
  }

  /**
   * Sets the turn aside without a slot until its question is answered (the answer wakes it) or
   * times out (the delay runs out): the job goes to BullMQ's delayed set, in Redis, so any
   * replica resumes it, also after this one is gone.
   */
  private async park(job: Job, token: string | undefined, parked: Extract<TurnRunOutcome, { kind: 'parked' }>): Promise<never> {
    await job.updateData({ ...job.data, parked: parked.state });
    await job.moveToDelayed(parked.wakeAt + WAKE_MARGIN_MS, token);
    // An answer that came before the job was set aside found nothing to wake: look once more.
    if (await this.permissions.isAnswered(parked.requestId)) await this.queue.wake(String(job.id));
    throw new DelayedError();
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
