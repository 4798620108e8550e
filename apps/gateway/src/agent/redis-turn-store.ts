import { type ChatMessage, type SessionEvent, type ToolCall, chatMessageSchema } from '@weft/contracts';
import type { Redis } from 'ioredis';
import type { EventLogRepository } from '../events/event-log.repository';
import type { RedisKeys } from '../infra/redis-keys';
import type { SessionsRepository } from '../sessions/sessions.repository';
import type { ContextState, InstructionsSummary, ToolCallState, ToolOutcome, TurnSession, TurnStore } from './ports';

/** What the results hash holds for a call that started and has not reported yet. */
const STARTED = 'started';

/** The runner's store: session records and messages, the event log, and tool outcomes by call id. */
export class RedisTurnStore implements TurnStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly sessions: SessionsRepository,
    private readonly events: EventLogRepository,
  ) {}

  session(sessionId: string): Promise<TurnSession | undefined> {
    return this.sessions.find(sessionId);
  }
  messages(sessionId: string): Promise<ChatMessage[]> {
    return this.sessions.messages(sessionId);
  }
  appendMessage(sessionId: string, message: ChatMessage): Promise<void> {
    return this.sessions.appendMessage(sessionId, message);
  }
  async appendEvent(sessionId: string, event: SessionEvent): Promise<void> {
    await this.events.append(sessionId, event);
  }
  endTurn(sessionId: string, turnId: string): Promise<void> {
    return this.sessions.endTurn(sessionId, turnId);
  }
  saveInstructions(sessionId: string, instructions: InstructionsSummary): Promise<void> {
    return this.sessions.saveInstructions(sessionId, instructions);
  }

  async contextState(sessionId: string): Promise<ContextState | undefined> {
    return (await this.sessions.find(sessionId))?.context ?? undefined;
  }
  saveContextState(sessionId: string, state: ContextState): Promise<void> {
    return this.sessions.saveContext(sessionId, state);
  }

  async toolCallState(sessionId: string, callId: string): Promise<ToolCallState> {
    const stored = await this.redis.hget(this.keys.sessionToolResults(sessionId), callId);
    if (stored === null) return { kind: 'new' };
    if (stored === STARTED) return { kind: 'unknown' };
    return { kind: 'done', outcome: JSON.parse(stored) as ToolOutcome };
  }

  async claimToolCall(sessionId: string, callId: string): Promise<boolean> {
    return (await this.redis.hsetnx(this.keys.sessionToolResults(sessionId), callId, STARTED)) === 1;
  }

  /** One transaction: a crash leaves either all three (outcome, tool message, event) or none. */
  async recordToolResult(sessionId: string, turnId: string, call: ToolCall, outcome: ToolOutcome): Promise<void> {
    const message = chatMessageSchema.parse({ role: 'tool', toolCallId: call.id, name: call.name, content: outcome.output });
    const event: SessionEvent = {
      type: 'tool.completed',
      turnId,
      callId: call.id,
      name: call.name,
      isError: outcome.isError,
      output: outcome.output,
    };
    const tx = this.redis
      .multi()
      .hset(this.keys.sessionToolResults(sessionId), call.id, JSON.stringify({ isError: outcome.isError, output: outcome.output }))
      .rpush(this.keys.sessionMessages(sessionId), JSON.stringify(message));
    this.events.appendTo(tx, sessionId, event);
    await tx.exec();
  }
}
