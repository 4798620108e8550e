import { Inject, Injectable } from '@nestjs/common';
import type { SessionEvent, StoredSessionEvent } from '@weft/contracts';
import type { ChainableCommander, Redis } from 'ioredis';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';
import { EVENT_FIELD, decodeEntry, encodeEvent } from './event-codec';

type Entry = [string, string[]];

/** A session's append-only event log: a Redis stream whose ids are the SSE ids. */
@Injectable()
export class EventLogRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings,
  ) {}

  async append(sessionId: string, event: SessionEvent): Promise<string> {
    const id = await this.redis.xadd(this.keys.sessionEvents(sessionId), ...this.trim(), '*', EVENT_FIELD, encodeEvent(event));
    if (!id) throw new Error('XADD returned no id');
    return id;
  }

  /** Adds the append to a transaction, so an event is logged together with the record it reports. */
  appendTo(tx: ChainableCommander, sessionId: string, event: SessionEvent): void {
    tx.xadd(this.keys.sessionEvents(sessionId), ...this.trim(), '*', EVENT_FIELD, encodeEvent(event));
  }

  /** Every event of the log, oldest first (for export and audit). */
  async all(sessionId: string, batch = 1000): Promise<StoredSessionEvent[]> {
    const out: StoredSessionEvent[] = [];
    for (let last = '0-0'; ; ) {
      const page = await this.rangeAfter(sessionId, last, batch);
      out.push(...page);
      if (page.length < batch) return out;
      last = page.at(-1)?.id ?? last;
    }
  }

  /** Whether the log holds the turn (its `message.created`): a turn of another session is not this one's. */
  async hasTurn(sessionId: string, turnId: string, batch = 1000): Promise<boolean> {
    for (let last = '0-0'; ; ) {
      const page = await this.rangeAfter(sessionId, last, batch);
      if (page.some((e) => e.type === 'message.created' && e.turnId === turnId)) return true;
      if (page.length < batch) return false;
      last = page.at(-1)?.id ?? last;
    }
  }

  /** Retention (AUDIT_RETENTION_DAYS): entries older than that go as new ones come (approximate MINID). */
  private trim(): string[] {
    const days = this.config.AUDIT_RETENTION_DAYS;
    if (days <= 0) return [];
    return ['MINID', '~', String(Date.now() - days * 24 * 3600 * 1000)];
  }

  /** Events strictly after `afterId` (`0-0` for all), oldest first. */
  async rangeAfter(sessionId: string, afterId: string, count: number): Promise<StoredSessionEvent[]> {
    const entries = (await this.redis.xrange(this.keys.sessionEvents(sessionId), `(${afterId}`, '+', 'COUNT', count)) as Entry[];
    return decodeAll(entries);
  }

  /** `0-0` when the log is empty, so clients can always pass it as `?after=`. */
  async lastId(sessionId: string): Promise<string> {
    const entries = (await this.redis.xrevrange(this.keys.sessionEvents(sessionId), '+', '-', 'COUNT', 1)) as Entry[];
    return entries[0]?.[0] ?? '0-0';
  }

  /** Blocks on `connection` (a dedicated one: XREAD BLOCK holds it) until events after `afterId` arrive. */
  async waitAfter(connection: Redis, sessionId: string, afterId: string, blockMs: number): Promise<StoredSessionEvent[]> {
    const key = this.keys.sessionEvents(sessionId);
    const reply = (await connection.xread('COUNT', 100, 'BLOCK', blockMs, 'STREAMS', key, afterId)) as
      | Array<[string, Entry[]]>
      | null;
    return decodeAll(reply?.[0]?.[1] ?? []);
  }

  /** A connection of its own for one live stream; the caller disconnects it. */
  dedicatedConnection(): Redis {
    return this.redis.duplicate();
  }
}

function decodeAll(entries: Entry[]): StoredSessionEvent[] {
  return entries.map(decodeEntry).filter((e): e is StoredSessionEvent => e !== undefined);
}
