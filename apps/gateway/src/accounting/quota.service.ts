import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, type ExecRequest } from '@weft/contracts';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';
import { QuotaReservations, type Reservation } from './quota-reservations';
import { sandboxReservationMs } from './reservation-bounds';
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
/** How long a sandbox run's reservation outlives its timeout: the wait for a worker, a slow reply. */
const SANDBOX_RESERVATION_SLACK_MS = 60_000;

function quotaExceeded(quota: string, limit: number, used: number, retryAfterSeconds: number, message: string, reserved?: number): AppError {
  return new AppError(ErrorCode.QuotaExceeded, message, { quota, limit, used, retryAfterSeconds, ...(reserved ? { reserved } : {}) });
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
    private readonly reservations: QuotaReservations,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings,
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

  /** Refuses a token count (no generation, nothing to reserve) once the user's tokens for the day are spent. */
  async assertTokensLeft(userId: string, tokensPerDay: number): Promise<void> {
    if (tokensPerDay === 0) return;
    const used = await this.usage.quotaTokensToday(userId);
    if (used >= tokensPerDay) throw this.tokensRefused(tokensPerDay, used, 0);
  }

  /**
   * Reserves a generation's bound against the user's tokens for the day before it starts; refused
   * when it does not fit next to what is used and held (see `QuotaReservations`). No quota: none.
   */
  async reserveTokens(userId: string, tokensPerDay: number, amount: number): Promise<Reservation | undefined> {
    if (tokensPerDay === 0) return undefined;
    const outcome = await this.reservations.reserve(userId, 'tokens', this.usage.quotaCounter(userId, 'tokens'), amount, tokensPerDay, this.tokenTtlMs());
    if ('taken' in outcome) return outcome.taken;
    throw this.tokensRefused(tokensPerDay, outcome.refused.used, outcome.refused.reserved);
  }

  /**
   * Keeps a generation's reservation from expiring while it streams: call on every message. A
   * generation hears from its worker at least every INFERENCE_TIMEOUT_MS or fails, and the
   * reservation, renewed at most every quarter of its ttl (twice that timeout), outlives the gap.
   */
  tokenLease(reservation: Reservation): () => Promise<void> {
    const ttl = this.tokenTtlMs();
    let renewedAt = Date.now();
    return async () => {
      if (Date.now() - renewedAt < ttl / 4) return;
      renewedAt = Date.now();
      await this.reservations.renew(reservation, ttl);
    };
  }

  /** Reserves a sandbox run's timeout against the user's sandbox seconds for the day before it starts. */
  async reserveSandboxRun(userId: string, secondsPerDay: number, request: ExecRequest): Promise<Reservation | undefined> {
    if (secondsPerDay === 0) return undefined;
    const amount = sandboxReservationMs(request, {
      shortRunMs: this.config.SANDBOX_TIMEOUT_MS,
      longRunThresholdMs: this.config.SANDBOX_LONG_RUN_THRESHOLD_MS,
      longRunMs: this.config.SANDBOX_LONG_RUN_TIMEOUT_MS,
    });
    const ttl = amount + this.config.SANDBOX_LONG_RUN_QUEUE_MS + SANDBOX_RESERVATION_SLACK_MS;
    const outcome = await this.reservations.reserve(userId, 'sandbox-ms', this.usage.quotaCounter(userId, 'sandbox-ms'), amount, secondsPerDay * 1000, ttl);
    if ('taken' in outcome) return outcome.taken;
    const used = Math.floor(outcome.refused.used / 1000);
    const reserved = Math.ceil(outcome.refused.reserved / 1000);
    const held = reserved ? `, ${reserved} held by runs still going` : '';
    const message = `Over your quota of ${secondsPerDay} sandbox seconds per day (${used} used${held}); it starts again at 00:00 UTC`;
    throw this.refuse('sandboxSecondsPerDay', secondsPerDay, used, secondsToNextUtcDay(), message, reserved);
  }

  /** Gives back a reservation whose work ended without a figure to count. */
  async release(reservation: Reservation): Promise<void> {
    await this.reservations.release(reservation);
  }

  private tokensRefused(tokensPerDay: number, used: number, reserved: number): AppError {
    const held = reserved ? `, ${reserved} held by generations still running` : '';
    const message = `Over your quota of ${tokensPerDay} tokens per day (${used} used${held}); it starts again at 00:00 UTC`;
    return this.refuse('tokensPerDay', tokensPerDay, used, secondsToNextUtcDay(), message, reserved);
  }

  /** Twice the longest a generation may go without a message from its worker (see `tokenLease`). */
  private tokenTtlMs(): number {
    return 2 * this.config.INFERENCE_TIMEOUT_MS;
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

  private refuse(quota: string, limit: number, used: number, retryAfterSeconds: number, message: string, reserved?: number): AppError {
    this.metrics.quotaRejected(quota);
    return quotaExceeded(quota, limit, used, retryAfterSeconds, message, reserved);
  }

  private limiter(points: number): RateLimiterRedis {
    let limiter = this.limiters.get(points);
    if (!limiter) {
      // While Redis refuses writes (out of memory, a full disk) each replica counts on its own, so reads go on being served.
      const insuranceLimiter = new RateLimiterMemory({ points, duration: 60 });
      limiter = new RateLimiterRedis({ storeClient: this.redis, keyPrefix: `${this.keys.requestRatePrefix()}:${points}`, points, duration: 60, insuranceLimiter });
      this.limiters.set(points, limiter);
    }
    return limiter;
  }
}

function member(sessionId: string, turnId: string): string {
  return `${sessionId} ${turnId}`;
}
