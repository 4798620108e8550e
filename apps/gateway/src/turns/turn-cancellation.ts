import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Logger } from '@weft/logging';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { LOGGER, REDIS } from '../infra/tokens';
import type { CancellationPort } from '../agent-core/ports';
import { TurnQueue } from './turn-queue';

/** A cancel outlives the turn by a day, so a run resumed late still sees it. */
const CANCEL_TTL_SECONDS = 24 * 3600;

/**
 * Cancelling a turn from any replica: a flag in Redis (seen by a run that starts or resumes
 * later) and a pub/sub message (which aborts a run in progress at once, wherever it runs).
 */
@Injectable()
export class TurnCancellation implements CancellationPort, OnModuleInit, OnModuleDestroy {
  private readonly running = new Map<string, Set<AbortController>>();
  private subscriber?: Redis;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly queue: TurnQueue,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onModuleInit(): Promise<void> {
    this.subscriber = this.redis.duplicate();
    this.subscriber.on('message', (_channel: string, turnId: string) => this.abortLocal(turnId));
    this.subscriber.on('error', (err) => this.logger.warn({ err }, 'turn-cancel subscriber error'));
    await this.subscriber.subscribe(this.keys.turnCancelChannel());
  }

  async onModuleDestroy(): Promise<void> {
    this.subscriber?.disconnect();
  }

  async request(turnId: string, userId: string): Promise<void> {
    await this.redis.set(this.keys.turnCancel(turnId), JSON.stringify({ userId, at: new Date().toISOString() }), 'EX', CANCEL_TTL_SECONDS);
    await this.redis.publish(this.keys.turnCancelChannel(), turnId);
    // A parked turn has no run to abort: woken, its next run sees the flag and ends cancelled.
    await this.queue.wake(turnId);
  }

  async watch(turnId: string): Promise<{ signal: AbortSignal; dispose(): void }> {
    const controller = new AbortController();
    const set = this.running.get(turnId) ?? new Set();
    set.add(controller);
    this.running.set(turnId, set);
    // Subscribed first, then the flag read: a cancel in between is seen one way or the other.
    if (await this.redis.exists(this.keys.turnCancel(turnId))) controller.abort();
    return {
      signal: controller.signal,
      dispose: () => {
        set.delete(controller);
        if (set.size === 0) this.running.delete(turnId);
      },
    };
  }

  async cancelledBy(turnId: string): Promise<string | undefined> {
    const raw = await this.redis.get(this.keys.turnCancel(turnId));
    if (!raw) return undefined;
    return (JSON.parse(raw) as { userId?: string }).userId;
  }

  private abortLocal(turnId: string): void {
    for (const controller of this.running.get(turnId) ?? []) controller.abort();
  }
}
