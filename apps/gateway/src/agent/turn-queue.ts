import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Jobs, Queues, type RunTurnJobInput, runTurnJobSchema } from '@weft/contracts';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { RedisKeys } from '../infra/redis-keys';

/** Producer side of the agent-turn queue; the job id is the turn id, so a turn is queued once. */
@Injectable()
export class TurnQueue implements OnApplicationShutdown {
  private readonly connection: Redis;
  private readonly queue: Queue;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewaySettings, keys: RedisKeys) {
    this.connection = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null });
    this.queue = new Queue(Queues.agentTurns, { connection: this.connection, prefix: keys.bullPrefix() });
  }

  async enqueue(job: Omit<RunTurnJobInput, 'kind'>): Promise<void> {
    const data = runTurnJobSchema.parse({ ...job, kind: Jobs.runTurn });
    // Not retried: a turn calls tools that are not idempotent.
    await this.queue.add(Jobs.runTurn, data, {
      jobId: job.turnId,
      attempts: 1,
      removeOnComplete: { count: 1000 },
      removeOnFail: { count: 1000 },
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close();
    await this.connection.quit();
  }
}
