import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';

/** What a daily quota counts: tokens, or milliseconds of sandbox runs. */
export type ReservedQuota = 'tokens' | 'sandbox-ms';

/** Held against a user's daily quota by work that has started and not yet been counted. */
export interface Reservation {
  /** The user's reservations hash, and this one's field in it. */
  readonly key: string;
  readonly id: string;
  readonly amount: number;
}

/** Where the day's figure of a quota is counted: a field of today's usage hash. */
export interface QuotaCounter {
  key: string;
  field: string;
}

export type ReserveOutcome = { taken: Reservation } | { refused: { used: number; reserved: number } };

/**
 * Takes a reservation if it fits what is left of the quota, or, when nothing else of the user's
 * is reserved and some of the quota is left, alone (the one piece of work that may cross the
 * line, as one always could). Expired reservations, left by a gateway that died, are dropped
 * first. Time is Redis's own, so every replica agrees on what has expired.
 * KEYS[1] the user's reservations (id → "amount expiresAtMs"), KEYS[2] today's usage hash.
 * ARGV: usage field, id, amount, limit, ttl (ms). Returns {taken 1|0, used, reserved by others}.
 */
const RESERVE_LUA = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local expires = now + tonumber(ARGV[5])
local reserved, latest = 0, expires
local entries = redis.call('HGETALL', KEYS[1])
for i = 1, #entries, 2 do
  local amount, at = string.match(entries[i + 1], '^(%d+) (%d+)$')
  if at == nil or tonumber(at) <= now then
    redis.call('HDEL', KEYS[1], entries[i])
  else
    reserved = reserved + tonumber(amount)
    if tonumber(at) > latest then latest = tonumber(at) end
  end
end
local used = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local amount, limit = tonumber(ARGV[3]), tonumber(ARGV[4])
if used + reserved + amount > limit and (reserved > 0 or used >= limit) then
  return {0, used, reserved}
end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3] .. ' ' .. string.format('%d', expires))
redis.call('PEXPIREAT', KEYS[1], latest)
return {1, used, reserved}
`;

/**
 * Pushes a live reservation's expiry to now + ttl. KEYS[1] the reservations hash; ARGV: id, ttl
 * (ms). 0 when it is gone (given back, or expired and dropped).
 */
const RENEW_LUA = `
local entry = redis.call('HGET', KEYS[1], ARGV[1])
if not entry then return 0 end
local time = redis.call('TIME')
local expires = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) + tonumber(ARGV[2])
redis.call('HSET', KEYS[1], ARGV[1], string.match(entry, '^(%d+) ') .. ' ' .. string.format('%d', expires))
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
`;

/**
 * Reservations against the daily quotas, one hash per user and quota. Each entry carries its own
 * expiry, so a reservation whose gateway died mid-work stops counting after its ttl even while
 * the user's other work keeps the hash alive.
 */
@Injectable()
export class QuotaReservations {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async reserve(userId: string, quota: ReservedQuota, counter: QuotaCounter, amount: number, limit: number, ttlMs: number): Promise<ReserveOutcome> {
    const key = this.key(userId, quota);
    const id = randomUUID();
    const [taken, used, reserved] = (await this.redis.eval(RESERVE_LUA, 2, key, counter.key, counter.field, id, amount, limit, Math.ceil(ttlMs))) as [number, number, number];
    return taken === 1 ? { taken: { key, id, amount } } : { refused: { used, reserved } };
  }

  /** Whether the reservation was still held (and now holds for another `ttlMs`). */
  async renew(reservation: Reservation, ttlMs: number): Promise<boolean> {
    return (await this.redis.eval(RENEW_LUA, 1, reservation.key, reservation.id, Math.ceil(ttlMs))) === 1;
  }

  async release(reservation: Reservation): Promise<void> {
    await this.redis.hdel(reservation.key, reservation.id);
  }

  private key(userId: string, quota: ReservedQuota): string {
    return `${this.keys.user(userId)}:reserved-${quota}`;
  }
}
