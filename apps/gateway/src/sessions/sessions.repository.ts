import { Inject, Injectable } from '@nestjs/common';
import { type ChatMessage, type SandboxNetwork, type SessionEvent, chatMessageSchema } from '@weft/contracts';
import type { ContextState, InstructionsSummary } from '../agent-core/ports';
import type { Redis } from 'ioredis';
import { encodeEvent } from '../events/event-codec';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';
import { BEGIN_TURN_LUA, END_TURN_LUA } from './session-scripts';
import type { SandboxWorkspace } from '@weft/contracts';

export interface Session {
  id: string;
  ownerId: string;
  workspaceId: string;
  model: string;
  title: string | null;
  createdAt: string;
  activeTurnId: string | null;
  /** The session's own iteration cap; the server default when null. */
  maxIterations: number | null;
  /** Turns run in planning mode unless a message asks for the plain loop. */
  planning: boolean;
  /** The session's sandbox network policy, fixed at creation. */
  sandboxNetwork: SandboxNetwork;
  /** Whether its commands may write to the workspace. */
  sandboxWorkspace: SandboxWorkspace;
  /** The catalogue image its commands run in; null: the workspace's choice or the default. */
  sandboxImage: string | null;
  /** The instructions of the latest turn, as added to its system prompt. */
  instructions: InstructionsSummary | null;
  /** The summary that replaces the oldest messages in the prompt, once the history outgrew the context. */
  context: ContextState | null;
}

export type BeginTurnOutcome = 'started' | 'busy' | 'missing';

@Injectable()
export class SessionsRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async create(session: Session): Promise<void> {
    await this.redis
      .multi()
      .hset(this.keys.session(session.id), {
        id: session.id,
        ownerId: session.ownerId,
        workspaceId: session.workspaceId,
        model: session.model,
        createdAt: session.createdAt,
        title: session.title ?? '',
        activeTurnId: '',
        maxIterations: session.maxIterations === null ? '' : String(session.maxIterations),
        planning: session.planning ? '1' : '',
        sandboxNetwork: session.sandboxNetwork,
        sandboxWorkspace: session.sandboxWorkspace,
        sandboxImage: session.sandboxImage ?? '',
      })
      .zadd(this.keys.userSessions(session.ownerId), Date.parse(session.createdAt), session.id)
      .exec();
  }

  async find(sessionId: string): Promise<Session | undefined> {
    const r = await this.redis.hgetall(this.keys.session(sessionId));
    if (!r.id || !r.ownerId || !r.workspaceId || !r.model) return undefined;
    return {
      id: r.id,
      ownerId: r.ownerId,
      workspaceId: r.workspaceId,
      model: r.model,
      title: r.title || null,
      createdAt: r.createdAt ?? '',
      activeTurnId: r.activeTurnId || null,
      maxIterations: r.maxIterations ? Number(r.maxIterations) : null,
      planning: r.planning === '1',
      // Sessions stored before these fields existed: no network, and read-only runs as they had.
      sandboxNetwork: r.sandboxNetwork === 'egress' || r.sandboxNetwork === 'proxy' ? r.sandboxNetwork : 'none',
      sandboxWorkspace: r.sandboxWorkspace === 'read-write' ? 'read-write' : 'read-only',
      sandboxImage: r.sandboxImage || null,
      instructions: r.instructions ? (JSON.parse(r.instructions) as InstructionsSummary) : null,
      context: r.context ? (JSON.parse(r.context) as ContextState) : null,
    };
  }

  async update(sessionId: string, changes: { title?: string | null; maxIterations?: number | null; planning?: boolean }): Promise<void> {
    const fields: Record<string, string> = {};
    if (changes.planning !== undefined) fields.planning = changes.planning ? '1' : '';
    if (changes.title !== undefined) fields.title = changes.title ?? '';
    if (changes.maxIterations !== undefined) fields.maxIterations = changes.maxIterations === null ? '' : String(changes.maxIterations);
    if (Object.keys(fields).length > 0) await this.redis.hset(this.keys.session(sessionId), fields);
  }

  async saveInstructions(sessionId: string, instructions: InstructionsSummary): Promise<void> {
    await this.redis.hset(this.keys.session(sessionId), 'instructions', JSON.stringify(instructions));
  }

  async saveContext(sessionId: string, context: ContextState): Promise<void> {
    await this.redis.hset(this.keys.session(sessionId), 'context', JSON.stringify(context));
  }

  /** The record, its messages, threads, log, tool outcomes, open questions and session rules, in one go. */
  async delete(session: Session): Promise<void> {
    const id = session.id;
    const threads = await this.redis.smembers(this.keys.sessionThreads(id));
    await this.redis
      .multi()
      .del(
        ...threads.flatMap((thread) => [this.keys.threadMessages(id, thread), this.keys.threadToolResults(id, thread)]),
        this.keys.sessionThreads(id),
        this.keys.threadContexts(id),
        this.keys.turnProgress(id),
        this.keys.session(id),
        this.keys.sessionMessages(id),
        this.keys.sessionEvents(id),
        this.keys.sessionToolResults(id),
        this.keys.sessionPermissionRequests(id),
        ...['allow', 'ask', 'deny'].map((list) => this.keys.permissionRules('session', id, list)),
      )
      .zrem(this.keys.userSessions(session.ownerId), id)
      .exec();
  }

  /** The first user message, for session lists. */
  async firstMessage(sessionId: string): Promise<ChatMessage | undefined> {
    const [raw] = await this.redis.lrange(this.keys.sessionMessages(sessionId), 0, 0);
    return raw ? chatMessageSchema.parse(JSON.parse(raw)) : undefined;
  }

  async messageCount(sessionId: string): Promise<number> {
    return this.redis.llen(this.keys.sessionMessages(sessionId));
  }

  /** Another user's session is reported exactly like a missing one. */
  async findOwned(ownerId: string, sessionId: string): Promise<Session | undefined> {
    const session = await this.find(sessionId);
    return session?.ownerId === ownerId ? session : undefined;
  }

  async listOwned(ownerId: string): Promise<Session[]> {
    const ids = await this.redis.zrevrange(this.keys.userSessions(ownerId), 0, -1);
    const found = await Promise.all(ids.map((id) => this.findOwned(ownerId, id)));
    return found.filter((s): s is Session => s !== undefined);
  }

  async beginTurn(sessionId: string, turnId: string, content: string): Promise<BeginTurnOutcome> {
    const message: ChatMessage = { role: 'user', content };
    const event: SessionEvent = { type: 'message.created', turnId, role: 'user', content };
    const result = await this.redis.eval(
      BEGIN_TURN_LUA,
      3,
      this.keys.session(sessionId),
      this.keys.sessionMessages(sessionId),
      this.keys.sessionEvents(sessionId),
      turnId,
      JSON.stringify(message),
      encodeEvent(event),
    );
    if (result === 0) return 'busy';
    if (result === -1) return 'missing';
    return 'started';
  }

  async endTurn(sessionId: string, turnId: string): Promise<void> {
    await this.redis.eval(END_TURN_LUA, 1, this.keys.session(sessionId), turnId);
  }

  async appendMessage(sessionId: string, message: ChatMessage): Promise<void> {
    await this.redis.rpush(this.keys.sessionMessages(sessionId), JSON.stringify(chatMessageSchema.parse(message)));
  }

  /** The session's other conversations (delegations, subtasks), by thread id. */
  async threads(sessionId: string): Promise<Map<string, ChatMessage[]>> {
    const ids = (await this.redis.smembers(this.keys.sessionThreads(sessionId))).sort();
    const lists = await Promise.all(ids.map((id) => this.redis.lrange(this.keys.threadMessages(sessionId, id), 0, -1)));
    return new Map(ids.map((id, i) => [id, (lists[i] ?? []).map((json) => chatMessageSchema.parse(JSON.parse(json)))]));
  }

  async messages(sessionId: string): Promise<ChatMessage[]> {
    const raw = await this.redis.lrange(this.keys.sessionMessages(sessionId), 0, -1);
    return raw.map((json) => chatMessageSchema.parse(JSON.parse(json)));
  }
}
