import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import { TurnQueue } from '../agent/turn-queue';
import { newId } from '../common/ids';
import { EventLogRepository } from '../events/event-log.repository';
import { ModelsService } from '../models/models.service';
import { WorkspacesService } from '../workspaces/workspaces.service';
import type { CreateSessionBody, PostMessageBody } from './sessions.schemas';
import { type Session, SessionsRepository } from './sessions.repository';

@Injectable()
export class SessionsService {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly events: EventLogRepository,
    private readonly workspaces: WorkspacesService,
    private readonly models: ModelsService,
    private readonly queue: TurnQueue,
  ) {}

  async create(ownerId: string, body: CreateSessionBody): Promise<{ id: string }> {
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
    };
    await this.sessions.create(session);
    return { id: session.id };
  }

  async list(ownerId: string) {
    const sessions = await this.sessions.listOwned(ownerId);
    return { sessions: sessions.map(present) };
  }

  async get(ownerId: string, sessionId: string) {
    const session = await this.owned(ownerId, sessionId);
    const [messages, lastEventId] = await Promise.all([
      this.sessions.messages(sessionId),
      this.events.lastId(sessionId),
    ]);
    return { ...present(session), lastEventId, messages };
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

function present({ id, workspaceId, model, title, createdAt, activeTurnId }: Session) {
  return { id, workspaceId, model, title, createdAt, activeTurnId };
}
