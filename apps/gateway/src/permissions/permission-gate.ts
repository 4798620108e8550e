import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, type ToolCall } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { Authorization, PermissionContext, PermissionPort, TurnPermissions } from '../agent-core/ports';
import { TurnParked } from '../agent-core/turn-context';
import { newId } from '../common/ids';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { LOGGER } from '../infra/tokens';
import { type PermissionAnswer, type PermissionRequest, PermissionRequestsRepository } from './permission-requests.repository';
import { PermissionPolicy } from './policy';
import type { RuleSet } from '@weft/contracts';
import { RuleLayersSource } from './rule-layers';
import { describeSubject, subjectOf } from './tool-subjects';

/** A command line that may run a package.json script (a cheap test; the policy decides exactly). */
const MAY_RUN_SCRIPT = /\b(npm|pnpm|yarn)\b/;

/**
 * The permission check of every tool call: the policy decides allow or deny at once, or the run
 * asks the user (`permission.requested`) and waits for the answer in Redis. Every outcome is
 * logged as `permission.decided`, with who decided.
 */
@Injectable()
export class PermissionGate implements PermissionPort {
  constructor(
    private readonly policy: PermissionPolicy,
    private readonly layers: RuleLayersSource,
    private readonly requests: PermissionRequestsRepository,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  forTurn(context: PermissionContext): TurnPermissions {
    let workspaceFile: Promise<RuleSet> | undefined;
    const fileRules = () => {
      workspaceFile ??= this.layers.workspaceFile(context.workspaceId).then((f) => f.rules);
      return workspaceFile;
    };
    return {
      authorize: (call) => this.authorize(call, context, fileRules),
      cancelOpenRequests: () => this.cancelOpenRequests(context),
    };
  }

  private async cancelOpenRequests(context: PermissionContext): Promise<void> {
    for (const request of await this.requests.pendingForSession(context.sessionId)) {
      if (request.turnId !== context.turnId) continue;
      const outcome = await this.requests.answer(request.requestId, { decision: 'deny', decidedBy: 'cancel', at: new Date().toISOString() });
      if (outcome.kind === 'answered') await context.emit(this.cancelledEvent(request, context));
    }
  }

  private cancelledEvent(request: Omit<PermissionRequest, 'status' | 'answer'>, context: PermissionContext) {
    return {
      type: 'permission.decided' as const,
      turnId: context.turnId,
      callId: request.callId,
      tool: request.call.name,
      requestId: request.requestId,
      decision: 'deny' as const,
      decidedBy: 'cancel' as const,
    };
  }

  private async authorize(call: ToolCall, context: PermissionContext, fileRules: () => Promise<RuleSet>): Promise<Authorization> {
    const earlier = await this.requests.findByCall(context.sessionId, call.id);
    if (earlier) return this.resume(earlier, context);
    const layers = await this.layers.layers(context, await fileRules());
    const subject = subjectOf(call);
    // What an `npm run x` runs is in package.json: shown in the question, bound into allow_always.
    if (subject.kind === 'command' && MAY_RUN_SCRIPT.test(subject.command)) {
      subject.packageScripts = await this.layers.packageScripts(context.workspaceId);
    }
    const decision = this.policy.evaluate(subject, layers);
    const base = { turnId: context.turnId, callId: call.id, tool: call.name };
    if (decision.behavior === 'allow' || decision.behavior === 'deny') {
      const reason = decision.reasons.join('; ') || undefined;
      await context.emit({
        type: 'permission.decided',
        ...base,
        decision: decision.behavior,
        decidedBy: 'policy',
        rule: decision.rule?.rule,
        scope: decision.rule?.scope ?? 'default',
        reason,
      });
      if (decision.behavior === 'allow') return { allowed: true, waitedMs: 0 };
      const by = decision.rule ? `the ${decision.rule.scope} rule ${decision.rule.rule}` : 'the permission policy';
      return { allowed: false, output: `${ErrorCode.PermissionDenied}: refused by ${by}: ${reason ?? ''}`.trim(), waitedMs: 0 };
    }
    const now = Date.now();
    const request: Omit<PermissionRequest, 'status' | 'answer'> = {
      requestId: newId('perm'),
      sessionId: context.sessionId,
      turnId: context.turnId,
      callId: call.id,
      call,
      subject: describeSubject(subject),
      reasons: decision.reasons,
      suggestedRules: decision.suggestedRules,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.config.PERMISSION_TIMEOUT_MS).toISOString(),
    };
    await this.requests.create(request);
    await context.emit({
      type: 'permission.requested',
      turnId: context.turnId,
      requestId: request.requestId,
      callId: call.id,
      call,
      subject: request.subject,
      reasons: request.reasons,
      suggestedRules: request.suggestedRules,
      expiresAt: request.expiresAt,
    });
    return this.wait(request, context);
  }

  /** A run that died while it asked picks up the same request (and its deadline) instead of asking again. */
  private async resume(request: PermissionRequest, context: PermissionContext): Promise<Authorization> {
    this.logger.info({ sessionId: context.sessionId, requestId: request.requestId }, 'resuming a permission request');
    return this.wait(request, context);
  }

  private async wait(request: Omit<PermissionRequest, 'status' | 'answer'>, context: PermissionContext): Promise<Authorization> {
    const started = Date.now();
    const deadline = Date.parse(request.expiresAt);
    let answer: PermissionAnswer | undefined;
    try {
      answer =
        context.parkAfterMs === undefined
          ? await this.requests.waitForAnswer(request.requestId, deadline, context.signal)
          : await this.requests.waitForAnswerUntil(request.requestId, deadline, started + context.parkAfterMs, context.signal);
    } catch (error) {
      if (!context.signal.aborted) throw error;
      await this.requests.answer(request.requestId, { decision: 'deny', decidedBy: 'cancel', at: new Date().toISOString() });
      await context.emit(this.cancelledEvent(request, context));
      throw error;
    }
    // Nobody answered within the patience: the run stops and the job waits without a slot.
    if (!answer) throw new TurnParked(request.requestId, deadline);
    await context.emit({
      type: 'permission.decided',
      turnId: context.turnId,
      callId: request.callId,
      tool: request.call.name,
      requestId: request.requestId,
      decision: answer.decision,
      decidedBy: answer.decidedBy,
      userId: answer.userId,
      scope: answer.scope,
      storedRules: answer.storedRules,
      reason: answer.reason,
    });
    const waitedMs = Date.now() - started;
    if (answer.decision === 'allow') return { allowed: true, waitedMs };
    return { allowed: false, output: deniedOutput(answer, this.config.PERMISSION_TIMEOUT_MS), waitedMs };
  }
}

function deniedOutput(answer: PermissionAnswer, timeoutMs: number): string {
  switch (answer.decidedBy) {
    case 'user':
      return `${ErrorCode.PermissionDenied}: the user denied this call${answer.reason ? `: ${answer.reason}` : ''}`;
    case 'timeout':
      return `${ErrorCode.PermissionDenied}: nobody answered the permission request within ${Math.round(timeoutMs / 1000)} s`;
    case 'cancel':
      return `${ErrorCode.PermissionDenied}: the turn was cancelled`;
  }
}
