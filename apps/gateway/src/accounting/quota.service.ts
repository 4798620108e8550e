import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';
import { secondsToNextUtcDay } from './usage-day';
import { UsageMetrics } from './usage-metrics';
import { UsageService } from './usage.service';
import { UserLimitsRepository } from './user-limits';

/**
 * Adds a turn to the user's running turns unless they already run `limit` (0: no limit).
 * KEYS[1] the user's running-turns zset; ARGV: member, now (ms), limit. 1 added, 0 refused.
 */
const CLAIM_TURN_LUA = `
local limit = tonumber(ARGV[3])
if limit > 0 and redis.call('ZSCORE', KEYS[1], ARGV[1]) == false and redis.call('ZCARD', KEYS[1]) >= limit then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
`;

/** Seconds a client refused for too many running turns should wait before trying again. */
const TURNS_RETRY_AFTER_S = 5;

function quotaExceeded(quota: string, limit: number, used: number, retryAfterSeconds: number, message: string): AppError {
  return new AppError(ErrorCode.QuotaExceeded, message, { quota, limit, used, retryAfterSeconds });
}

/** The per-user quotas, each counted atomically in Redis. */
@Injectable()
export class QuotaService {
  /** One limiter per distinct per-minute limit: rate-limiter-flexible fixes the points per instance. */
  private readonly limiters = new Map<number, RateLimiterRedis>();

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly limits: UserLimitsRepository,
    private readonly usage: UsageService,
    private readonly metrics: UsageMetrics,
  ) {}

  /** Counts one API request against the user's requests per minute. */
  async countRequest(userId: string): Promise<void> {
    const { requestsPerMinute } = await this.limits.effective(userId);
    if (requestsPerMinute === 0) return;
    try {
      await this.limiter(requestsPerMinute).consume(userId);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw this.refuse('requestsPerMinute', requestsPerMinute, rejection.consumedPoints, retryAfter, `Over your quota of ${requestsPerMinute} requests per minute; retry in ${retryAfter} s`);
    }
  }

  /**
   * Claims a running-turn place for the user; refused at the limit. Places of turns that ended
   * without giving theirs back (a replica killed before it could) are found and dropped first.
   */
  async claimTurn(userId: string, sessionId: string, turnId: string): Promise<void> {
    const { concurrentTurns } = await this.limits.effective(userId);
    const key = this.keys.userActiveTurns(userId);
    const claim = () => this.redis.eval(CLAIM_TURN_LUA, 1, key, member(sessionId, turnId), Date.now(), concurrentTurns);
    if ((await claim()) === 1) return;
    await this.dropEndedTurns(userId);
    if ((await claim()) === 1) return;
    const used = await this.redis.zcard(key);
    throw this.refuse('concurrentTurns', concurrentTurns, used, TURNS_RETRY_AFTER_S, `You already run ${used} turns, your quota of concurrent turns is ${concurrentTurns}; wait for one to finish`);
  }

  /**
   * The turn's place in the fair order of the turn queue: its rank among the user's running turns
   * divided by their weight, so a user's first turn goes before another's sixteenth.
   */
  async fairPlace(userId: string): Promise<number> {
    const [running, { weight }] = await Promise.all([this.redis.zcard(this.keys.userActiveTurns(userId)), this.limits.effective(userId)]);
    return Math.max(1, Math.ceil(running / weight));
  }

  async releaseTurn(userId: string, sessionId: string, turnId: string): Promise<void> {
    await this.redis.zrem(this.keys.userActiveTurns(userId), member(sessionId, turnId));
  }

  /** Refuses a generation once the user's tokens for the day are spent. */
  async assertTokensLeft(userId: string, tokensPerDay: number): Promise<void> {
    if (tokensPerDay === 0) return;
    const used = await this.usage.quotaTokensToday(userId);
    if (used < tokensPerDay) return;
    const retryAfter = secondsToNextUtcDay();
    throw this.refuse('tokensPerDay', tokensPerDay, used, retryAfter, `Over your quota of ${tokensPerDay} tokens per day (${used} used); it starts again at 00:00 UTC`);
  }

  /** Refuses a sandbox run once the user's sandbox seconds for the day are spent. */
  async assertSandboxTimeLeft(userId: string, secondsPerDay: number): Promise<void> {
    if (secondsPerDay === 0) return;
    const used = Math.floor((await this.usage.sandboxMsToday(userId)) / 1000);
    if (used < secondsPerDay) return;
    const retryAfter = secondsToNextUtcDay();
    throw this.refuse('sandboxSecondsPerDay', secondsPerDay, used, retryAfter, `Over your quota of ${secondsPerDay} sandbox seconds per day (${used} used); it starts again at 00:00 UTC`);
  }

  private async dropEndedTurns(userId: string): Promise<void> {
    const key = this.keys.userActiveTurns(userId);
    for (const entry of await this.redis.zrange(key, 0, -1)) {
      const [sessionId = '', turnId = ''] = entry.split(' ');
      // The session hash's own field: the turn is over once the session no longer names it.
      const active = await this.redis.hget(this.keys.session(sessionId), 'activeTurnId');
      if (active !== turnId) await this.redis.zrem(key, entry);
    }
  }

  private refuse(quota: string, limit: number, used: number, retryAfterSeconds: number, message: string): AppError {
    this.metrics.quotaRejected(quota);
    return quotaExceeded(quota, limit, used, retryAfterSeconds, message);
  }

  private limiter(points: number): RateLimiterRedis {
    let limiter = this.limiters.get(points);
    if (!limiter) {
      limiter = new RateLimiterRedis({ storeClient: this.redis, keyPrefix: `${this.keys.requestRatePrefix()}:${points}`, points, duration: 60 });
      this.limiters.set(points, limiter);
    }
    return limiter;
  }
}

function member(sessionId: string, turnId: string): string {
  return `${sessionId} ${turnId}`;
}
