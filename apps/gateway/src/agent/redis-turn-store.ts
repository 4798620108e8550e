import { type ChatMessage, type SessionEvent, type ToolCall, chatMessageSchema } from '@weft/contracts';
import type { Redis } from 'ioredis';
import type { ToolAuditRepository } from '../audit/tool-audit.repository';
import type { EventLogRepository } from '../events/event-log.repository';
import type { RedisKeys } from '../infra/redis-keys';
import type { SessionsRepository } from '../sessions/sessions.repository';
import { MessageListCache } from './message-list-cache';
import type {
  ContextState,
  InstructionsSummary,
  ThreadRef,
  ToolCallState,
  ToolOutcome,
  TurnProgress,
  TurnSession,
  TurnStore,
} from '../agent-core/ports';

/** What the results hash holds for a call that started and has not reported yet. */
const STARTED = 'started';
/** Field prefix in a thread's results hash marking a call whose `tool.called` is logged. */
const ANNOUNCED = 'announced:';

/**
 * The runner's store: session records, the messages and tool outcomes (by call id) of each
 * conversation, the event log, and how far planning and chain turns got.
 */
export class RedisTurnStore implements TurnStore {
  private readonly history: MessageListCache;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly sessions: SessionsRepository,
    private readonly events: EventLogRepository,
    private readonly audit: ToolAuditRepository,
  ) {
    this.history = new MessageListCache(redis);
  }

  session(sessionId: string): Promise<TurnSession | undefined> {
    return this.sessions.find(sessionId);
  }

  /** Read on every model step: only what was appended since the last read is fetched and parsed. */
  messages(thread: ThreadRef): Promise<ChatMessage[]> {
    return this.history.read(this.messagesKey(thread));
  }

  async appendMessage(thread: ThreadRef, message: ChatMessage): Promise<void> {
    if (!thread.threadId) return this.sessions.appendMessage(thread.sessionId, message);
    await this.redis
      .multi()
      .sadd(this.keys.sessionThreads(thread.sessionId), thread.threadId)
      .rpush(this.keys.threadMessages(thread.sessionId, thread.threadId), JSON.stringify(chatMessageSchema.parse(message)))
      .exec();
  }

  async appendEvent(sessionId: string, event: SessionEvent): Promise<void> {
    if (event.type === 'permission.decided') await this.audit.noteDecision(sessionId, event);
    await this.events.append(sessionId, event);
  }
  endTurn(sessionId: string, turnId: string): Promise<void> {
    return this.sessions.endTurn(sessionId, turnId);
  }
  saveInstructions(sessionId: string, instructions: InstructionsSummary): Promise<void> {
    return this.sessions.saveInstructions(sessionId, instructions);
  }

  async contextState(thread: ThreadRef): Promise<ContextState | undefined> {
    if (!thread.threadId) return (await this.sessions.find(thread.sessionId))?.context ?? undefined;
    const raw = await this.redis.hget(this.keys.threadContexts(thread.sessionId), thread.threadId);
    return raw ? (JSON.parse(raw) as ContextState) : undefined;
  }
  async saveContextState(thread: ThreadRef, state: ContextState): Promise<void> {
    if (!thread.threadId) return this.sessions.saveContext(thread.sessionId, state);
    await this.redis.hset(this.keys.threadContexts(thread.sessionId), thread.threadId, JSON.stringify(state));
  }

  async progress(sessionId: string, turnId: string): Promise<TurnProgress | undefined> {
    const raw = await this.redis.hget(this.keys.turnProgress(sessionId), turnId);
    return raw ? (JSON.parse(raw) as TurnProgress) : undefined;
  }
  async saveProgress(sessionId: string, turnId: string, progress: TurnProgress): Promise<void> {
    await this.redis.hset(this.keys.turnProgress(sessionId), turnId, JSON.stringify(progress));
  }

  async toolCallState(thread: ThreadRef, callId: string): Promise<ToolCallState> {
    const stored = await this.redis.hget(this.resultsKey(thread), callId);
    if (stored === null) return { kind: 'new' };
    if (stored === STARTED) return { kind: 'unknown' };
    return { kind: 'done', outcome: JSON.parse(stored) as ToolOutcome };
  }

  // In the results hash under a field of its own, so it goes wherever the call's result goes.
  async wasAnnounced(thread: ThreadRef, callId: string): Promise<boolean> {
    return (await this.redis.hexists(this.resultsKey(thread), `${ANNOUNCED}${callId}`)) === 1;
  }
  async markAnnounced(thread: ThreadRef, callId: string): Promise<void> {
    await this.redis.hset(this.resultsKey(thread), `${ANNOUNCED}${callId}`, '1');
  }

  async claimToolCall(thread: ThreadRef, callId: string): Promise<boolean> {
    return (await this.redis.hsetnx(this.resultsKey(thread), callId, STARTED)) === 1;
  }

  /** One transaction: a crash leaves either all four (outcome, tool message, event, audit entry) or none. */
  async recordToolResult(thread: ThreadRef, turnId: string, call: ToolCall, outcome: ToolOutcome): Promise<void> {
    const [session, decision] = await Promise.all([this.sessions.find(thread.sessionId), this.audit.decisionOf(thread.sessionId, call.id)]);
    const message = chatMessageSchema.parse({ role: 'tool', toolCallId: call.id, name: call.name, content: outcome.output });
    const event: SessionEvent = {
      type: 'tool.completed',
      turnId,
      ...(thread.threadId ? { threadId: thread.threadId } : {}),
      callId: call.id,
      name: call.name,
      isError: outcome.isError,
      output: outcome.output,
    };
    const tx = this.redis
      .multi()
      .hset(this.resultsKey(thread), call.id, JSON.stringify({ isError: outcome.isError, output: outcome.output }))
      .rpush(this.messagesKey(thread), JSON.stringify(message));
    this.events.appendTo(tx, thread.sessionId, event);
    const completed = { ownerId: session?.ownerId ?? '', sessionId: thread.sessionId, turnId, call, ...outcome };
    this.audit.appendCompleted(tx, completed, decision);
    await tx.exec();
  }

  private messagesKey(thread: ThreadRef): string {
    return thread.threadId
      ? this.keys.threadMessages(thread.sessionId, thread.threadId)
      : this.keys.sessionMessages(thread.sessionId);
  }

  private resultsKey(thread: ThreadRef): string {
    return thread.threadId
      ? this.keys.threadToolResults(thread.sessionId, thread.threadId)
      : this.keys.sessionToolResults(thread.sessionId);
  }
}
