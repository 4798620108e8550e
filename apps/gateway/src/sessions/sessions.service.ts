import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import { TurnCancellation } from '../agent/turn-cancellation';
import { TurnQueue } from '../agent/turn-queue';
import { newId } from '../common/ids';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { EventLogRepository } from '../events/event-log.repository';
import { ModelsService } from '../models/models.service';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { compactionOf, preview, toAuditJsonl, toJsonl, toMarkdown } from './session-export';
import type { CreateSessionBody, PostMessageBody, UpdateSessionBody } from './sessions.schemas';
import { type Session, SessionsRepository } from './sessions.repository';

@Injectable()
export class SessionsService {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly events: EventLogRepository,
    private readonly workspaces: WorkspacesService,
    private readonly models: ModelsService,
    private readonly queue: TurnQueue,
    private readonly cancellation: TurnCancellation,
    @Inject(GATEWAY_CONFIG) private readonly config: Pick<GatewaySettings, 'SANDBOX_EGRESS_ALLOWED'>,
  ) {}

  async create(ownerId: string, body: CreateSessionBody): Promise<{ id: string }> {
    if (body.sandboxNetwork === 'egress' && !this.config.SANDBOX_EGRESS_ALLOWED) {
      throw new AppError(
        ErrorCode.Forbidden,
        'This server does not allow sandbox network egress (SANDBOX_EGRESS_ALLOWED=false); create the session with sandboxNetwork "none"',
      );
    }
    await this.workspaces.assertOwned(ownerId, body.workspaceId);
    await this.models.assertKnown(body.model);
    const session: Session = {
      id: newId('ses'),
      ownerId,
      workspaceId: body.workspaceId,
      model: body.model,
      title: body.title ?? null,
      createdAt: new Date().toISOString(),
      activeTurnId: null,
      maxIterations: body.maxIterations ?? null,
      sandboxNetwork: body.sandboxNetwork,
      instructions: null,
      context: null,
    };
    await this.sessions.create(session);
    return { id: session.id };
  }

  /** Newest first, each with the first thing the user asked. */
  async list(ownerId: string) {
    const sessions = await this.sessions.listOwned(ownerId);
    const previews = await Promise.all(sessions.map((s) => this.sessions.firstMessage(s.id)));
    return { sessions: sessions.map((s, i) => ({ ...present(s), preview: preview(previews[i]) })) };
  }

  async get(ownerId: string, sessionId: string) {
    const session = await this.owned(ownerId, sessionId);
    const [messages, lastEventId] = await Promise.all([
      this.sessions.messages(sessionId),
      this.events.lastId(sessionId),
    ]);
    return { ...present(session), instructions: session.instructions, compaction: compactionOf(session), lastEventId, messages };
  }

  async update(ownerId: string, sessionId: string, body: UpdateSessionBody) {
    await this.owned(ownerId, sessionId);
    await this.sessions.update(sessionId, body);
    return present(await this.owned(ownerId, sessionId));
  }

  /** A running turn must be cancelled first: its worker would write into a deleted session. */
  async delete(ownerId: string, sessionId: string): Promise<void> {
    const session = await this.owned(ownerId, sessionId);
    if (session.activeTurnId) {
      throw new AppError(ErrorCode.TurnInProgress, `Session ${sessionId} is running turn ${session.activeTurnId}; cancel it first`);
    }
    await this.sessions.delete(session);
  }

  async export(ownerId: string, sessionId: string, format: 'jsonl' | 'markdown'): Promise<string> {
    const session = await this.owned(ownerId, sessionId);
    const events = await this.events.all(sessionId);
    if (format === 'markdown') return toMarkdown(session, events);
    return toJsonl(session, await this.sessions.messages(sessionId), events);
  }

  async audit(ownerId: string, sessionId: string): Promise<string> {
    await this.owned(ownerId, sessionId);
    return toAuditJsonl(await this.events.all(sessionId));
  }

  /** Any replica: the run (wherever it is) aborts its generation or permission wait and ends `turn.cancelled`. */
  async cancelTurn(ownerId: string, sessionId: string, turnId: string): Promise<{ turnId: string; status: 'cancelling' }> {
    const session = await this.owned(ownerId, sessionId);
    if (session.activeTurnId !== turnId) {
      throw new AppError(ErrorCode.Conflict, `Turn ${turnId} is not running in session ${sessionId}`);
    }
    await this.cancellation.request(turnId, ownerId);
    return { turnId, status: 'cancelling' };
  }

  /** Stores the message and logs it before the turn is queued, so no worker sees a turn without it. */
  async postMessage(ownerId: string, sessionId: string, body: PostMessageBody): Promise<{ turnId: string }> {
    await this.owned(ownerId, sessionId);
    const turnId = newId('turn');
    const outcome = await this.sessions.beginTurn(sessionId, turnId, body.content);
    if (outcome === 'missing') throw notFound(sessionId);
    if (outcome === 'busy') {
      throw new AppError(ErrorCode.TurnInProgress, `Session ${sessionId} is already running a turn`);
    }
    try {
      await this.queue.enqueue({ sessionId, turnId, userId: ownerId });
    } catch (error) {
      await this.events.append(sessionId, {
        type: 'turn.failed',
        turnId,
        code: ErrorCode.Internal,
        message: 'The turn could not be queued',
      });
      await this.sessions.endTurn(sessionId, turnId);
      throw error;
    }
    return { turnId };
  }

  /** For the event stream: the session must be the caller's. */
  async owned(ownerId: string, sessionId: string): Promise<Session> {
    const session = await this.sessions.findOwned(ownerId, sessionId);
    if (!session) throw notFound(sessionId);
    return session;
  }
}

function notFound(sessionId: string): AppError {
  return new AppError(ErrorCode.NotFound, `Session ${sessionId} not found`);
}

function present({ id, workspaceId, model, title, createdAt, activeTurnId, maxIterations, sandboxNetwork }: Session) {
  return { id, workspaceId, model, title, createdAt, activeTurnId, maxIterations, sandboxNetwork };
}
