import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import { TurnQueue } from '../turns/turn-queue';
import { SessionsRepository } from '../sessions/sessions.repository';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { type PermissionAnswer, type PermissionRequest, PermissionRequestsRepository } from './permission-requests.repository';
import { PermissionRulesRepository, type RuleOwner } from './permission-rules.repository';
import type { AnswerPermissionBody } from '@weft/contracts';
import type { RuleSet } from '@weft/contracts';
import { RuleLayersSource } from './rule-layers';

export type UserScopeRef = { scope: 'user' } | { scope: 'workspace'; id: string } | { scope: 'session'; id: string };

@Injectable()
export class PermissionsService {
  constructor(
    private readonly rules: PermissionRulesRepository,
    private readonly requests: PermissionRequestsRepository,
    private readonly layers: RuleLayersSource,
    private readonly sessions: SessionsRepository,
    private readonly workspaces: WorkspacesService,
    private readonly turns: TurnQueue,
  ) {}

  async getRules(userId: string, ref: UserScopeRef) {
    const owner = await this.owner(userId, ref);
    const rules = await this.rules.get(owner);
    if (ref.scope !== 'workspace') return { scope: ref.scope, rules };
    const file = await this.layers.workspaceFile(ref.id);
    return { scope: ref.scope, rules, settingsFile: { ask: file.rules.ask, deny: file.rules.deny, ignored: file.ignored } };
  }

  async putRules(userId: string, ref: UserScopeRef, rules: RuleSet) {
    const owner = await this.owner(userId, ref);
    await this.rules.replace(owner, rules);
    return { scope: ref.scope, rules: await this.rules.get(owner) };
  }

  async getServerRules() {
    return { scope: 'server', rules: await this.rules.get({ scope: 'server' }), config: this.layers.serverConfig() };
  }

  async putServerRules(rules: RuleSet) {
    await this.rules.replace({ scope: 'server' }, rules);
    return this.getServerRules();
  }

  async pending(userId: string, sessionId: string) {
    await this.ownedSession(userId, sessionId);
    const requests = await this.requests.pendingForSession(sessionId);
    return { requests: requests.map(present) };
  }

  /** `allow_always` stores its rules before the run is woken, so the very next call sees them. */
  async answer(userId: string, sessionId: string, requestId: string, body: AnswerPermissionBody) {
    const session = await this.ownedSession(userId, sessionId);
    const request = await this.requests.find(requestId);
    if (!request || request.sessionId !== sessionId) {
      throw new AppError(ErrorCode.NotFound, `Permission request ${requestId} not found`);
    }
    if (request.status !== 'pending' || Date.parse(request.expiresAt) <= Date.now()) {
      throw closed(requestId, request.answer);
    }
    const answer: PermissionAnswer = {
      decision: body.decision === 'deny' ? 'deny' : 'allow',
      decidedBy: 'user',
      userId,
      reason: body.reason,
      at: new Date().toISOString(),
    };
    if (body.decision === 'allow_always') {
      const scope = body.scope ?? 'session';
      const ref: UserScopeRef = scope === 'user' ? { scope } : { scope, id: scope === 'workspace' ? session.workspaceId : sessionId };
      const storedRules = body.rules ?? request.suggestedRules;
      await this.rules.add(await this.owner(userId, ref), 'allow', storedRules);
      Object.assign(answer, { scope, storedRules });
    }
    const outcome = await this.requests.answer(requestId, answer);
    if (outcome.kind === 'missing') throw new AppError(ErrorCode.NotFound, `Permission request ${requestId} not found`);
    if (outcome.kind === 'already') throw closed(requestId, outcome.answer);
    // A turn that stopped waiting (parked) is woken to carry on; one still waiting saw the answer.
    await this.turns.wake(request.turnId);
    return { requestId, decision: body.decision, scope: answer.scope ?? null, storedRules: answer.storedRules ?? [] };
  }

  private async owner(userId: string, ref: UserScopeRef): Promise<RuleOwner> {
    switch (ref.scope) {
      case 'user':
        return { scope: 'user', id: userId };
      case 'workspace':
        await this.workspaces.assertOwned(userId, ref.id);
        return ref;
      case 'session':
        await this.ownedSession(userId, ref.id);
        return ref;
    }
  }

  private async ownedSession(userId: string, sessionId: string) {
    const session = await this.sessions.findOwned(userId, sessionId);
    if (!session) throw new AppError(ErrorCode.NotFound, `Session ${sessionId} not found`);
    return session;
  }
}

function closed(requestId: string, answer: PermissionAnswer | undefined): AppError {
  const how = answer ? `already answered (${answer.decision} by ${answer.decidedBy})` : 'expired';
  return new AppError(ErrorCode.Conflict, `Permission request ${requestId} is ${how}`, { answer });
}

function present(request: PermissionRequest) {
  const { requestId, turnId, callId, call, subject, reasons, suggestedRules, createdAt, expiresAt } = request;
  return { requestId, turnId, callId, call, subject, reasons, suggestedRules, createdAt, expiresAt };
}
