import { Inject, Injectable } from '@nestjs/common';
import type { AuditEntry } from '@weft/contracts';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';
import { type AdminActor, BOOTSTRAP_ACTOR, actorName } from './admin-actor';

/** Entries kept; older ones are trimmed as new ones come (Redis `MAXLEN ~`). */
const MAX_ENTRIES = 10_000;

/** What admins did, newest last, in a Redis stream: who was created, disabled, deleted, given keys or limits, and by whom (read with the tool calls by AuditTrailRepository). */
@Injectable()
export class AdminAudit {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async record(actor: AdminActor, action: string, userId?: string, details?: Record<string, unknown>): Promise<void> {
    const fields = [
      'action',
      action,
      'at',
      new Date().toISOString(),
      'actor',
      actorName(actor),
      ...(actor.kind === 'user' ? ['actorKeyId', actor.keyId] : []),
      ...(userId ? ['userId', userId] : []),
      ...(details ? ['details', JSON.stringify(details)] : []),
    ];
    await this.redis.xadd(this.keys.adminAudit(), 'MAXLEN', '~', MAX_ENTRIES, '*', ...fields);
  }
}

/** An entry of the admin actions' stream as the audit trail shows it. */
export function parseAdminEntry([id, flat]: [string, string[]]): AuditEntry {
  const f = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) f.set(flat[i] as string, flat[i + 1] as string);
  const details = f.get('details');
  return {
    id,
    at: f.get('at') ?? '',
    kind: 'admin',
    // Entries from before admin users existed were all made with the bootstrap token.
    actor: f.get('actor') ?? BOOTSTRAP_ACTOR,
    ...(f.get('actorKeyId') ? { actorKeyId: f.get('actorKeyId') } : {}),
    action: f.get('action') ?? '',
    ...(f.get('userId') ? { userId: f.get('userId') } : {}),
    ...(details ? { details: JSON.parse(details) as Record<string, unknown> } : {}),
  };
}
