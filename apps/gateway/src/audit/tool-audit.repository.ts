import { Inject, Injectable } from '@nestjs/common';
import type { AuditEntry, SessionEvent, ToolCall } from '@weft/contracts';
import type { ChainableCommander, Redis } from 'ioredis';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';
import { outcomeOf, summarizeArgs } from './audit-args';

/** Most tool-call entries kept, whatever the retention (Redis `MAXLEN ~`): about 100 MB at most. */
export const MAX_TOOL_AUDIT_ENTRIES = 200_000;
/** How long a call's permission decision waits for the call's result (a parked turn may wait days). */
const PENDING_DECISION_TTL_S = 14 * 24 * 3600;

type PermissionDecided = Extract<SessionEvent, { type: 'permission.decided' }>;
type Decision = Pick<AuditEntry, 'decision' | 'decidedBy' | 'decider' | 'rule' | 'scope'>;

export interface CompletedCall {
  ownerId: string;
  sessionId: string;
  turnId: string;
  call: ToolCall;
  isError: boolean;
  output: string;
}

/**
 * The tool calls' audit trail: one entry a call, written with its result (who, session, tool,
 * arguments summary, decision, outcome). The decision comes first, possibly from another replica,
 * and waits in a small hash until the result.
 */
@Injectable()
export class ToolAuditRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings,
  ) {}

  get streamKey(): string {
    return `${this.keys.prefix}tool-audit`;
  }

  async noteDecision(sessionId: string, event: PermissionDecided): Promise<void> {
    const decision: Decision = {
      decision: event.decision,
      decidedBy: event.decidedBy,
      ...(event.userId ? { decider: event.userId } : {}),
      ...(event.rule ? { rule: event.rule } : {}),
      ...(event.scope ? { scope: event.scope } : {}),
    };
    const key = this.pendingKey(sessionId, event.callId);
    await this.redis.set(key, JSON.stringify(decision), 'EX', PENDING_DECISION_TTL_S);
  }

  /** The decision noted for the call, read before `appendCompleted` writes the entry in the caller's transaction. */
  async decisionOf(sessionId: string, callId: string): Promise<Decision> {
    const stored = await this.redis.get(this.pendingKey(sessionId, callId));
    return stored ? (JSON.parse(stored) as Decision) : {};
  }

  appendCompleted(tx: ChainableCommander, completed: CompletedCall, decision: Decision): void {
    const entry: Omit<AuditEntry, 'id'> = {
      at: new Date().toISOString(),
      kind: 'tool',
      actor: completed.ownerId,
      action: completed.call.name,
      sessionId: completed.sessionId,
      turnId: completed.turnId,
      callId: completed.call.id,
      args: summarizeArgs(completed.call),
      ...decision,
      ...outcomeOf(completed.isError, completed.output),
    };
    tx.xadd(this.streamKey, 'MAXLEN', '~', MAX_TOOL_AUDIT_ENTRIES, '*', 'e', JSON.stringify(entry));
    const days = this.config.AUDIT_RETENTION_DAYS;
    if (days > 0) tx.xtrim(this.streamKey, 'MINID', '~', Date.now() - days * 24 * 3600 * 1000);
    tx.del(this.pendingKey(completed.sessionId, completed.call.id));
  }

  private pendingKey(sessionId: string, callId: string): string {
    return `${this.keys.prefix}tool-audit:decision:${sessionId}:${callId}`;
  }
}
