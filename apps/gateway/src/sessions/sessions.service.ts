import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, type RunTurnJobInput, type TurnMode } from '@weft/contracts';
import { QuotaService } from '../accounting/quota.service';
import { RpcChainLoader } from '../chains/chain-loader';
import { resolveInputs } from '../chains/chain-schema';
import { TurnCancellation } from '../turns/turn-cancellation';
import { TurnQueue } from '../turns/turn-queue';
import { newId } from '../common/ids';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { EventLogRepository } from '../events/event-log.repository';
import { ModelsService } from '../models/models.service';
import { WorkspacesService } from '../workspaces/workspaces.service';
import type { Logger } from '@weft/logging';
import { LOGGER } from '../infra/tokens';
import { SandboxSessionsClient } from './sandbox-sessions.client';
import { compactionOf, preview, toAuditJsonl, toJsonl, toMarkdown } from './session-export';
import type { CreateSessionBody, PostMessageBody, RunChainBody, UpdateSessionBody } from '@weft/contracts';
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
    private readonly chains: RpcChainLoader,
    private readonly sandbox: SandboxSessionsClient,
    private readonly quotas: QuotaService,
    @Inject(GATEWAY_CONFIG)
    private readonly config: Pick<GatewaySettings, 'SANDBOX_EGRESS_ALLOWED' | 'SANDBOX_DEFAULT_NETWORK' | 'SANDBOX_WORKSPACE_WRITES'>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async create(ownerId: string, body: CreateSessionBody): Promise<{ id: string }> {
    const sandboxNetwork = body.sandboxNetwork ?? this.config.SANDBOX_DEFAULT_NETWORK;
    if (sandboxNetwork === 'egress' && !this.config.SANDBOX_EGRESS_ALLOWED) {
      throw new AppError(
        ErrorCode.Forbidden,
        'This server does not allow sandbox network egress (SANDBOX_EGRESS_ALLOWED=false); create the session with sandboxNetwork "proxy" or "none"',
      );
    }
    const sandboxWorkspace = body.sandboxWorkspace ?? (this.config.SANDBOX_WORKSPACE_WRITES ? 'read-write' : 'read-only');
    if (sandboxWorkspace === 'read-write' && !this.config.SANDBOX_WORKSPACE_WRITES) {
      throw new AppError(
        ErrorCode.Forbidden,
        'This server does not let commands write to workspaces (SANDBOX_WORKSPACE_WRITES=false); create the session with sandboxWorkspace "read-only"',
      );
    }
    await this.workspaces.assertOwned(ownerId, body.workspaceId);
    await this.workspaces.touch(body.workspaceId);
    await this.models.assertKnown(body.model, ownerId);
    if (body.sandboxImage !== undefined) await this.sandbox.assertImage(body.sandboxImage);
    const session: Session = {
      id: newId('ses'),
      ownerId,
      workspaceId: body.workspaceId,
      model: body.model,
      title: body.title ?? null,
      createdAt: new Date().toISOString(),
      activeTurnId: null,
      maxIterations: body.maxIterations ?? null,
      planning: body.planning ?? false,
      sandboxNetwork,
      sandboxWorkspace,
      sandboxImage: body.sandboxImage ?? null,
      instructions: null,
      context: null,
    };
    await this.sessions.create(session);
    return { id: session.id };
  }

  /** Newest first, each with the first thing the user asked and when its log last moved. */
  async list(ownerId: string) {
    const sessions = await this.sessions.listOwned(ownerId);
    const [previews, lastIds] = await Promise.all([
      Promise.all(sessions.map((s) => this.sessions.firstMessage(s.id))),
      Promise.all(sessions.map((s) => this.events.lastId(s.id))),
    ]);
    return {
      sessions: sessions.map((s, i) => ({ ...present(s), preview: preview(previews[i]), lastActivityAt: lastActivityAt(s, lastIds[i]) })),
    };
  }

  async get(ownerId: string, sessionId: string) {
    const session = await this.owned(ownerId, sessionId);
    const [messages, lastEventId, sandboxImageInUse] = await Promise.all([
      this.sessions.messages(sessionId),
      this.events.lastId(sessionId),
      this.imageInUse(session),
    ]);
    return { ...present(session), sandboxImageInUse, instructions: session.instructions, compaction: compactionOf(session), lastEventId, messages };
  }

  /** What the session's commands run in now; null when no sandbox worker could say (the session is still served). */
  private async imageInUse(session: Session) {
    try {
      return await this.sandbox.resolveImage(session.workspaceId, session.sandboxImage);
    } catch (error) {
      this.logger.warn({ err: error, sessionId: session.id }, 'could not resolve the session\'s sandbox image');
      return null;
    }
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
    // Its container would stop by itself when idle; removing it now frees the machine sooner.
    await this.sandbox.release(sessionId).catch((error: unknown) =>
      this.logger.warn({ err: error, sessionId }, 'could not remove the deleted session\'s sandbox container'),
    );
  }

  async export(ownerId: string, sessionId: string, format: 'jsonl' | 'markdown'): Promise<string> {
    const session = await this.owned(ownerId, sessionId);
    const events = await this.events.all(sessionId);
    if (format === 'markdown') return toMarkdown(session, events);
    const [messages, threads] = await Promise.all([this.sessions.messages(sessionId), this.sessions.threads(sessionId)]);
    return toJsonl(session, messages, events, threads);
  }

  async audit(ownerId: string, sessionId: string): Promise<string> {
    await this.owned(ownerId, sessionId);
    return toAuditJsonl(await this.events.all(sessionId));
  }

  /** Any replica: the run (wherever it is) aborts its generation or permission wait and ends `turn.cancelled`. */
  async cancelTurn(ownerId: string, sessionId: string, turnId: string): Promise<{ turnId: string; status: 'cancelling' }> {
    const session = await this.owned(ownerId, sessionId);
    if (session.activeTurnId !== turnId) {
      // A turn of another session (another user's included) is unknown here, like any resource of theirs.
      if (!(await this.events.hasTurn(sessionId, turnId))) throw new AppError(ErrorCode.NotFound, `Turn ${turnId} not found in session ${sessionId}`);
      throw new AppError(ErrorCode.Conflict, `Turn ${turnId} is not running in session ${sessionId}`);
    }
    await this.cancellation.request(turnId, ownerId);
    return { turnId, status: 'cancelling' };
  }

  /** A turn on the session's model, or straight to the junior; in planning mode where asked for. */
  async postMessage(ownerId: string, sessionId: string, body: PostMessageBody): Promise<{ turnId: string; mode: TurnMode; model: string }> {
    const session = await this.owned(ownerId, sessionId);
    await this.workspaces.touch(session.workspaceId);
    const model = body.to === 'junior' ? await this.juniorModel(ownerId) : session.model;
    const mode = body.mode ?? (session.planning ? 'plan' : 'chat');
    const turnId = await this.startTurn(ownerId, sessionId, body.content, { mode, ...(body.to ? { model } : {}) });
    return { turnId, mode, model };
  }

  /** The chains of the session's workspace, each with its inputs, or the problems that stop it running. */
  async listChains(ownerId: string, sessionId: string) {
    const session = await this.owned(ownerId, sessionId);
    return { chains: await this.chains.list(session.workspaceId) };
  }

  /** Checks the chain and its inputs before anything is stored, so a bad run is refused with the reason. */
  async runChain(ownerId: string, sessionId: string, name: string, body: RunChainBody): Promise<{ turnId: string; chain: string; steps: number }> {
    const session = await this.owned(ownerId, sessionId);
    const chain = await this.chains.load(session.workspaceId, name);
    const inputs = resolveInputs(name, chain, body.inputs);
    const content = `Run chain "${name}"${Object.keys(inputs).length > 0 ? ` with inputs ${JSON.stringify(inputs)}` : ''}`;
    const turnId = await this.startTurn(ownerId, sessionId, content, { mode: 'chain', chain: { name, inputs } });
    return { turnId, chain: name, steps: chain.steps.length };
  }

  /** Among the models the user's groups let them use, so that the error names no other. */
  private async juniorModel(userId: string): Promise<string> {
    const { models } = await this.models.listFor(userId);
    const junior = models.find((m) => m.roles?.includes('junior'));
    if (junior) return junior.id;
    throw new AppError(
      ErrorCode.NoModelForRole,
      'No model with the role "junior" is being served; give one "roles": ["junior"] in the model registry',
      { role: 'junior', known: models.map((m) => m.id) },
    );
  }

  /** Stores the message and logs it before the turn is queued, so no worker sees a turn without it. */
  private async startTurn(
    ownerId: string,
    sessionId: string,
    content: string,
    options: Pick<RunTurnJobInput, 'mode' | 'model' | 'chain'>,
  ): Promise<string> {
    const turnId = newId('turn');
    // The user's place among their concurrent turns; the turn gives it back when it ends.
    await this.quotas.claimTurn(ownerId, sessionId, turnId);
    const outcome = await this.sessions.beginTurn(sessionId, turnId, content).catch(async (error: unknown) => {
      await this.quotas.releaseTurn(ownerId, sessionId, turnId);
      throw error;
    });
    if (outcome !== 'started') await this.quotas.releaseTurn(ownerId, sessionId, turnId);
    if (outcome === 'missing') throw notFound(sessionId);
    if (outcome === 'busy') {
      throw new AppError(ErrorCode.TurnInProgress, `Session ${sessionId} is already running a turn`);
    }
    try {
      await this.queue.enqueue({ sessionId, turnId, userId: ownerId, ...options }, await this.quotas.fairPlace(ownerId));
    } catch (error) {
      await this.quotas.releaseTurn(ownerId, sessionId, turnId);
      await this.events.append(sessionId, {
        type: 'turn.failed',
        turnId,
        code: ErrorCode.Internal,
        message: 'The turn could not be queued',
      });
      await this.sessions.endTurn(sessionId, turnId);
      throw error;
    }
    return turnId;
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

/** The time of the log's last event (stream ids start with it), or the creation time of a session with an empty log. */
function lastActivityAt(session: Session, lastEventId: string | undefined): string {
  const ms = Number(lastEventId?.split('-')[0] ?? 0);
  return ms > 0 ? new Date(ms).toISOString() : session.createdAt;
}

function present(session: Session) {
  const { id, workspaceId, model, title, createdAt, activeTurnId, maxIterations, planning, sandboxNetwork, sandboxWorkspace, sandboxImage } = session;
  return { id, workspaceId, model, title, createdAt, activeTurnId, maxIterations, planning, sandboxNetwork, sandboxWorkspace, sandboxImage };
}
