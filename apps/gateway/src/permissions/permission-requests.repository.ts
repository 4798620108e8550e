import { Inject, Injectable } from '@nestjs/common';
import { type ToolCall, toolCallSchema } from '@weft/contracts';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';

export const permissionAnswerSchema = z.object({
  decision: z.enum(['allow', 'deny']),
  decidedBy: z.enum(['user', 'timeout', 'cancel']),
  userId: z.string().optional(),
  reason: z.string().optional(),
  scope: z.string().optional(),
  storedRules: z.array(z.string()).optional(),
  at: z.string(),
});
export type PermissionAnswer = z.infer<typeof permissionAnswerSchema>;

export interface PermissionRequest {
  requestId: string;
  sessionId: string;
  turnId: string;
  callId: string;
  call: ToolCall;
  subject: string;
  reasons: string[];
  suggestedRules: string[];
  createdAt: string;
  expiresAt: string;
  status: 'pending' | 'allow' | 'deny';
  answer?: PermissionAnswer;
}

/** Keep answered requests around for a day after they expire: a resumed run may still look. */
const KEEP_SECONDS = 24 * 3600;
/** Longest single BLPOP; the loop re-reads the request between two. */
const MAX_BLOCK_SECONDS = 30;

/**
 * Answers a pending request once. KEYS: request hash, answer list. ARGV: status, answer JSON, ttl.
 * Returns 'ok', the answer JSON already given, or nil when the request is gone.
 */
const ANSWER_LUA = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return nil end
if status ~= 'pending' then return redis.call('HGET', KEYS[1], 'answer') end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'answer', ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 'ok'
`;

export type AnswerOutcome = { kind: 'answered' } | { kind: 'already'; answer: PermissionAnswer } | { kind: 'missing' };

/** Permission requests in Redis, so that the question, the answer and the wait survive any one process. */
@Injectable()
export class PermissionRequestsRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async create(request: Omit<PermissionRequest, 'status' | 'answer'>): Promise<void> {
    const ttl = Math.ceil((Date.parse(request.expiresAt) - Date.now()) / 1000) + KEEP_SECONDS;
    const key = this.keys.permissionRequest(request.requestId);
    await this.redis
      .multi()
      .hset(key, { status: 'pending', request: JSON.stringify(request) })
      .expire(key, ttl)
      .hset(this.keys.sessionPermissionRequests(request.sessionId), request.callId, request.requestId)
      .exec();
  }

  async find(requestId: string): Promise<PermissionRequest | undefined> {
    const record = await this.redis.hgetall(this.keys.permissionRequest(requestId));
    if (!record.request || !record.status) return undefined;
    const stored = JSON.parse(record.request) as Omit<PermissionRequest, 'status' | 'answer'>;
    const answer = record.answer ? permissionAnswerSchema.parse(JSON.parse(record.answer)) : undefined;
    return { ...stored, call: toolCallSchema.parse(stored.call), status: record.status as PermissionRequest['status'], answer };
  }

  async findByCall(sessionId: string, callId: string): Promise<PermissionRequest | undefined> {
    const requestId = await this.redis.hget(this.keys.sessionPermissionRequests(sessionId), callId);
    return requestId ? this.find(requestId) : undefined;
  }

  async isAnswered(requestId: string): Promise<boolean> {
    return (await this.redis.hget(this.keys.permissionRequest(requestId), 'status')) !== 'pending';
  }

  async pendingForSession(sessionId: string): Promise<PermissionRequest[]> {
    const ids = await this.redis.hvals(this.keys.sessionPermissionRequests(sessionId));
    const found = await Promise.all(ids.map((id) => this.find(id)));
    return found.filter((r): r is PermissionRequest => r?.status === 'pending');
  }

  async answer(requestId: string, answer: PermissionAnswer): Promise<AnswerOutcome> {
    const json = JSON.stringify(permissionAnswerSchema.parse(answer));
    const result = (await this.redis.eval(
      ANSWER_LUA,
      2,
      this.keys.permissionRequest(requestId),
      this.keys.permissionAnswer(requestId),
      answer.decision,
      json,
      KEEP_SECONDS,
    )) as string | null;
    if (result === null) return { kind: 'missing' };
    if (result === 'ok') return { kind: 'answered' };
    return { kind: 'already', answer: permissionAnswerSchema.parse(JSON.parse(result)) };
  }

  /**
   * Blocks until the request is answered, the deadline passes (then it is answered `deny` by
   * timeout) or `signal` aborts (which rejects). Blocks on a connection of its own, dropped on abort.
   */
  async waitForAnswer(requestId: string, deadline: number, signal: AbortSignal): Promise<PermissionAnswer> {
    return (await this.waitUntil(requestId, deadline, Infinity, signal)) as PermissionAnswer;
  }

  /**
   * As `waitForAnswer`, but gives up at `giveUpAt` (before the deadline) with undefined, leaving
   * the request pending: the turn parks and a later run waits on.
   */
  async waitForAnswerUntil(requestId: string, deadline: number, giveUpAt: number, signal: AbortSignal): Promise<PermissionAnswer | undefined> {
    return this.waitUntil(requestId, deadline, giveUpAt, signal);
  }

  private async waitUntil(requestId: string, deadline: number, giveUpAt: number, signal: AbortSignal): Promise<PermissionAnswer | undefined> {
    const connection = this.redis.duplicate();
    const onAbort = () => connection.disconnect();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        signal.throwIfAborted();
        const request = await this.find(requestId);
        if (!request) return { decision: 'deny', decidedBy: 'timeout', reason: 'the request expired', at: new Date().toISOString() };
        if (request.answer) return request.answer;
        const remainingMs = deadline - Date.now();
        if (remainingMs <= 0) {
          const timedOut: PermissionAnswer = { decision: 'deny', decidedBy: 'timeout', at: new Date().toISOString() };
          const outcome = await this.answer(requestId, timedOut);
          return outcome.kind === 'already' ? outcome.answer : timedOut;
        }
        const patienceMs = Math.min(remainingMs, giveUpAt - Date.now());
        if (patienceMs <= 0) return undefined;
        try {
          await connection.blpop(this.keys.permissionAnswer(requestId), Math.max(0.01, Math.min(patienceMs / 1000, MAX_BLOCK_SECONDS)));
        } catch (error) {
          signal.throwIfAborted();
          throw error;
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      connection.disconnect();
    }
  }
}
