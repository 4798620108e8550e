import { Inject, Injectable } from '@nestjs/common';
import type { GenerateResult } from '@weft/contracts';
import type { Redis } from 'ioredis';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';
import type { QuotaCounter, Reservation, ReservedQuota } from './quota-reservations';
import { daysBetween, utcDay } from './usage-day';
import { UsageMetrics } from './usage-metrics';

export const USAGE_METRICS = ['turns', 'generations', 'promptTokens', 'cachedTokens', 'evaluatedTokens', 'completionTokens', 'toolCalls', 'sandboxRuns', 'sandboxMs'] as const;

/** Sandbox runs belong to no model: their rows carry this in place of one. */
export const SANDBOX_MODEL = 'sandbox';
export type UsageMetric = (typeof USAGE_METRICS)[number];

export type UsageRow = { date: string; userId: string; model: string } & Record<UsageMetric, number>;

export interface UsageFilter {
  from: string;
  to: string;
  userId?: string;
  model?: string;
}

/** The fields of a day's hash that sum what counts towards the daily quotas. */
const QUOTA_TOKENS = 'quotaTokens';
const QUOTA_SANDBOX_MS = 'quotaSandboxMs';
const SEP = '\t';

/**
 * Usage per user, model and UTC day, counted with HINCRBY (atomic, no read-modify-write) in one
 * hash per day that expires after USAGE_RETENTION_DAYS.
 */
@Injectable()
export class UsageService {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings,
    private readonly metrics: UsageMetrics,
  ) {}

  /**
   * One finished generation. The quota counts what the GPU did: prompt tokens evaluated plus
   * tokens generated. The generation's reservation, if any, goes in the same transaction, so the
   * quota never sees the work counted twice or not at all.
   */
  async recordGeneration(userId: string, model: string, usage: GenerateResult['usage'], settles?: Reservation): Promise<void> {
    const evaluated = usage.evaluatedTokens ?? usage.promptTokens;
    this.metrics.generation(model, usage);
    await this.add(userId, model, {
      generations: 1,
      promptTokens: usage.promptTokens,
      cachedTokens: usage.cachedTokens ?? 0,
      evaluatedTokens: evaluated,
      completionTokens: usage.completionTokens,
    }, evaluated + usage.completionTokens, 0, settles);
  }

  async recordTurn(userId: string, model: string, toolCalls: number): Promise<void> {
    this.metrics.turn(model, toolCalls);
    await this.add(userId, model, { turns: 1, toolCalls }, 0);
  }

  /** One sandbox run, however it ended: its wall-clock time counts, in place of its reservation. */
  async recordSandboxRun(userId: string, ms: number, settles?: Reservation): Promise<void> {
    const rounded = Math.max(0, Math.round(ms));
    this.metrics.sandboxRun(rounded);
    await this.add(userId, SANDBOX_MODEL, { sandboxRuns: 1, sandboxMs: rounded }, 0, rounded, settles);
  }

  /** Where today's figure of a daily quota is counted, for reservations checked against it. */
  quotaCounter(userId: string, quota: ReservedQuota): QuotaCounter {
    return { key: this.keys.usageDay(utcDay()), field: field(userId, '*', quota === 'tokens' ? QUOTA_TOKENS : QUOTA_SANDBOX_MS) };
  }

  /** Milliseconds of sandbox runs today, for the sandbox-seconds quota. */
  async sandboxMsToday(userId: string): Promise<number> {
    return Number((await this.redis.hget(this.keys.usageDay(utcDay()), field(userId, '*', QUOTA_SANDBOX_MS))) ?? 0);
  }

  /** What counts towards the user's tokens-per-day quota today. */
  async quotaTokensToday(userId: string): Promise<number> {
    return Number((await this.redis.hget(this.keys.usageDay(utcDay()), field(userId, '*', QUOTA_TOKENS))) ?? 0);
  }

  async query(filter: UsageFilter): Promise<UsageRow[]> {
    const days = daysBetween(filter.from, filter.to);
    const pipeline = this.redis.pipeline();
    for (const day of days) pipeline.hgetall(this.keys.usageDay(day));
    const results = (await pipeline.exec()) ?? [];
    const rows = new Map<string, UsageRow>();
    results.forEach(([, hash], i) => {
      const date = days[i] as string;
      for (const [key, value] of Object.entries((hash ?? {}) as Record<string, string>)) {
        const [userId = '', model = '', metric = ''] = key.split(SEP);
        if (!isMetric(metric) || (filter.userId && userId !== filter.userId) || (filter.model && model !== filter.model)) continue;
        const id = [date, userId, model].join(SEP);
        const row = rows.get(id) ?? { date, userId, model, ...zero() };
        row[metric] += Number(value);
        rows.set(id, row);
      }
    });
    return [...rows.values()].sort((a, b) => a.date.localeCompare(b.date) || a.userId.localeCompare(b.userId) || a.model.localeCompare(b.model));
  }

  private async add(userId: string, model: string, counts: Partial<Record<UsageMetric, number>>, quotaTokens: number, quotaSandboxMs = 0, settles?: Reservation): Promise<void> {
    const key = this.keys.usageDay(utcDay());
    const multi = this.redis.multi();
    for (const [metric, n] of Object.entries(counts)) if (n) multi.hincrby(key, field(userId, model, metric), n);
    if (quotaTokens) multi.hincrby(key, field(userId, '*', QUOTA_TOKENS), quotaTokens);
    if (quotaSandboxMs) multi.hincrby(key, field(userId, '*', QUOTA_SANDBOX_MS), quotaSandboxMs);
    multi.expire(key, (this.config.USAGE_RETENTION_DAYS + 1) * 86_400);
    if (settles) multi.hdel(settles.key, settles.id);
    await multi.exec();
  }
}

function field(userId: string, model: string, metric: string): string {
  return [userId, model, metric].join(SEP);
}

function isMetric(name: string): name is UsageMetric {
  return (USAGE_METRICS as readonly string[]).includes(name);
}

function zero(): Record<UsageMetric, number> {
  return Object.fromEntries(USAGE_METRICS.map((m) => [m, 0])) as Record<UsageMetric, number>;
}

/** Sums rows into one per metric. */
export function usageTotals(rows: readonly UsageRow[]): Record<UsageMetric, number> {
  const totals = zero();
  for (const row of rows) for (const metric of USAGE_METRICS) totals[metric] += row[metric];
  return totals;
}
