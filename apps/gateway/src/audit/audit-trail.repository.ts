import { Inject, Injectable } from '@nestjs/common';
import type { AuditEntry, AuditPage, auditQuerySchema } from '@weft/contracts';
import type { Redis } from 'ioredis';
import type { z } from 'zod';
import { parseAdminEntry } from '../auth/admin-audit';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';
import { ToolAuditRepository } from './tool-audit.repository';

/** Entries read from one stream per page at most: a filter that matches little answers a short page and a `next`. */
export const MAX_SCANNED_PER_PAGE = 5_000;
const CHUNK = 500;

type Filter = z.output<typeof auditQuerySchema>;
type Entry = [id: string, fields: string[]];
interface Scan {
  matches: AuditEntry[];
  /** The oldest entry looked at, when older ones were left unread. */
  stoppedAt?: string;
}

/**
 * Reads the audit trail, newest first: the tool calls' stream and the admin actions' stream
 * merged by time, each scanned a bounded number of entries per page.
 */
@Injectable()
export class AuditTrailRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly tools: ToolAuditRepository,
  ) {}

  async page(filter: Filter): Promise<AuditPage> {
    const upper = upperBound(filter);
    const lower = filter.from ? String(Date.parse(filter.from)) : '-';
    const scans: Scan[] = [];
    if (filter.kind !== 'admin') scans.push(await this.scan(this.tools.streamKey, upper, lower, filter, parseToolEntry));
    // Admin actions belong to no session.
    if (filter.kind !== 'tool' && !filter.session) scans.push(await this.scan(this.keys.adminAudit(), upper, lower, filter, parseAdminEntry));
    // Below the newest place a scan stopped, the other stream's entries may not be in order yet.
    const cutoff = scans.map((s) => s.stoppedAt).reduce<string | undefined>((a, b) => (b && (!a || compareIds(b, a) > 0) ? b : a), undefined);
    const merged = scans
      .flatMap((s) => s.matches)
      .filter((e) => !cutoff || compareIds(e.id, cutoff) >= 0)
      .sort((a, b) => compareIds(b.id, a.id));
    const entries = merged.slice(0, filter.limit);
    const next = merged.length > filter.limit ? entries.at(-1)?.id : cutoff;
    return { entries, ...(next ? { next } : {}) };
  }

  private async scan(key: string, upper: string, lower: string, filter: Filter, parse: (entry: Entry) => AuditEntry): Promise<Scan> {
    const matches: AuditEntry[] = [];
    let scanned = 0;
    for (let from = upper; ; ) {
      const chunk = (await this.redis.xrevrange(key, from, lower, 'COUNT', CHUNK)) as Entry[];
      for (const raw of chunk) {
        const entry = parse(raw);
        scanned++;
        if (passes(entry, filter)) matches.push(entry);
        if (matches.length > filter.limit) return { matches, stoppedAt: entry.id };
      }
      const last = chunk.at(-1);
      if (chunk.length < CHUNK || !last) return { matches };
      if (scanned >= MAX_SCANNED_PER_PAGE) return { matches, stoppedAt: last[0] };
      from = `(${last[0]}`;
    }
  }
}

function passes(entry: AuditEntry, filter: Filter): boolean {
  if (filter.user && entry.actor !== filter.user && entry.userId !== filter.user) return false;
  if (filter.session && entry.sessionId !== filter.session) return false;
  if (filter.action && entry.action !== filter.action) return false;
  return true;
}

/** `to` is inclusive: a date alone reaches to the end of that day. */
function upperBound(filter: Filter): string {
  const to = filter.to ? Date.parse(filter.to) + (/^\d{4}-\d{2}-\d{2}$/.test(filter.to) ? 24 * 3600 * 1000 - 1 : 0) : undefined;
  if (filter.before && (to === undefined || compareIds(filter.before, `${to}-0`) <= 0)) return `(${filter.before}`;
  return to === undefined ? '+' : String(to);
}

/** Stream ids are `ms-seq`; compared as numbers, not text. */
export function compareIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}

function parseToolEntry([id, fields]: Entry): AuditEntry {
  const json = fields[fields.indexOf('e') + 1] ?? '{}';
  return { ...(JSON.parse(json) as Omit<AuditEntry, 'id'>), id };
}
