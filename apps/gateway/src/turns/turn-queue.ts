import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Jobs, Queues, type RunTurnJobInput, runTurnJobSchema } from '@weft/contracts';
import { currentTraceCarrier } from '@weft/telemetry';
import { Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { RedisKeys } from '../infra/redis-keys';

/** BullMQ serves lower numbers first; the largest priority it accepts. */
const MAX_PRIORITY = 2_097_152;
/** A woken turn goes ahead of turns not started yet: a person is waiting for it. */
const WOKEN_PRIORITY = 1;

/**
 * Producer side of the agent-turn queue; the job id is the turn id, so a turn is queued once.
 * Turns wait in fair order: the caller gives each its place among its user's running turns
 * (divided by the user's weight), so a user with one turn goes before another's sixteenth.
 */
@Injectable()
export class TurnQueue implements OnApplicationShutdown {
  private readonly connection: Redis;
  private readonly queue: Queue;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewaySettings, keys: RedisKeys) {
    this.connection = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null });
    this.queue = new Queue(Queues.agentTurns, { connection: this.connection, prefix: keys.bullPrefix() });
  }

  /** `place`: the turn's rank in its user's share (1 for their first running turn). */
  async enqueue(job: Omit<RunTurnJobInput, 'kind'>, place = 1): Promise<void> {
    // The request's trace context rides in the job, so the run (on any replica) joins its trace.
    const trace = currentTraceCarrier();
    const data = runTurnJobSchema.parse({ ...job, kind: Jobs.runTurn, ...(trace ? { trace } : {}) });
    // Not retried: a turn calls tools that are not idempotent.
    await this.queue.add(Jobs.runTurn, data, {
      jobId: job.turnId,
      attempts: 1,
      priority: Math.min(MAX_PRIORITY, Math.max(1, Math.ceil(place))),
      removeOnComplete: { count: 1000 },
      removeOnFail: { count: 1000 },
    });
  }

  /**
   * Wakes a parked turn (its permission question was answered, or it was cancelled) so a worker
   * takes it at once; a turn that is not parked is left alone (it is running, or already woken).
   */
  async wake(turnId: string): Promise<boolean> {
    const job = await Job.fromId(this.queue, turnId);
    if (!job || !(await job.isDelayed())) return false;
    try {
      await job.changePriority({ priority: WOKEN_PRIORITY });
      await job.promote();
      return true;
    } catch {
      // Promoted by another replica (or the delay ran out) in between: it is on its way anyway.
      return false;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close();
    await this.connection.quit();
  }
}
