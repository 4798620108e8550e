import { randomUUID } from 'node:crypto';
import {
  AppError,
  type ChatMessage,
  ErrorCode,
  type GenerateResult,
  type RunTurnJob,
  type SessionEvent,
  type ToolCall,
  type ToolDefinition,
} from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { AbortedError, abortable, raceAbort } from './abortable';
import { ContextManager } from './context-manager';
import { type Interruption, LoopGuard } from './loop-guard';
import type {
  CancellationPort,
  FileToolsPort,
  InferencePort,
  InstructionsPort,
  ModelContextPort,
  PermissionPort,
  SandboxPort,
  ToolOutcome,
  TurnPermissions,
  TurnSession,
  TurnStore,
} from './ports';
import { RUNTIME_NOTE_PREFIX, buildSystemPrompt, interruptionNote } from './system-prompt';
import { type Usage, addUsage } from './usage';
import type { AgentTool, ToolContext } from './tools/define-tool';
import { runToolCall } from './tools/run-tool-call';

export interface TurnRunnerDeps {
  store: TurnStore;
  inference: InferencePort;
  files: FileToolsPort;
  sandbox: SandboxPort;
  tools: ReadonlyMap<string, AgentTool>;
  permissions: PermissionPort;
  instructions: InstructionsPort;
  cancellation: CancellationPort;
  /** Context lengths of the models; without it the history is never compacted. */
  models?: ModelContextPort;
  logger: Logger;
}

/** Reply room kept free in the context when no reply cap is configured. */
const DEFAULT_REPLY_RESERVE_TOKENS = 2048;

export interface TurnLimits {
  /** Model steps per turn, unless the session sets its own. */
  maxIterations: number;
  /** Cap on one model reply, so a model that never stops cannot hold a sequence forever. */
  maxReplyTokens?: number;
  /** Identical calls in a row that count as a loop. */
  loopRepeatLimit?: number;
  /** Identical errors in one turn that count as going round in circles. */
  repeatedErrorLimit?: number;
  /** Prompt plus completion tokens one turn may spend. */
  maxTurnTokens?: number;
  /** Wall time of one turn, not counting time spent waiting for a permission answer. */
  maxTurnMs?: number;
}

/** Everything one run of one turn carries from step to step. */
interface Run {
  sessionId: string;
  turnId: string;
  session: TurnSession;
  log: Logger;
  emit: (event: SessionEvent) => Promise<void>;
  /** Aborts when the user cancels the turn. */
  cancel: AbortSignal;
  usage: Usage;
  iterations: number;
  startedAt: number;
  waitedMs: number;
  guard: LoopGuard;
  permissions: TurnPermissions;
  systemPrompt: string;
  /** The model's context length, when the workers announce it. */
  contextSize: number | undefined;
  tools: ToolContext;
}

class TurnCancelled extends Error {}

/** How long a cancel waits for the call in flight to wind down before the turn ends. */
const CANCEL_GRACE_MS = 1000;

async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([promise.then(() => undefined, () => undefined), deadline]);
  clearTimeout(timer);
}

/**
 * The agent loop of one turn: generate, check and run the tool calls, feed the results back,
 * until the model answers without tools. Guard rails (iteration cap, loop detection, token and
 * time budgets) interrupt the loop and ask the model for a summary, which ends the turn. Every
 * message and event is persisted before the next step, and tool outcomes are stored by call id,
 * so a rerun (a stalled job picked up by another replica) continues from the stored history and
 * never runs a call twice.
 */
export class TurnRunner {
  private readonly definitions: ToolDefinition[];
  private readonly context: ContextManager;

  constructor(
    private readonly deps: TurnRunnerDeps,
    private readonly limits: TurnLimits,
  ) {
    this.definitions = [...deps.tools.values()].map((tool) => tool.definition);
    this.context = new ContextManager(deps.store, deps.inference, limits.maxReplyTokens ?? DEFAULT_REPLY_RESERVE_TOKENS);
  }

  async run(job: Pick<RunTurnJob, 'sessionId' | 'turnId'>): Promise<void> {
    const { sessionId, turnId } = job;
    const log = this.deps.logger.child({ sessionId, turnId });
    const session = await this.deps.store.session(sessionId);
    if (!session || session.activeTurnId !== turnId) {
      log.warn('turn is no longer active; skipping');
      return;
    }
    const watch = await this.deps.cancellation.watch(turnId);
    const emit = (event: SessionEvent) => this.deps.store.appendEvent(sessionId, event);
    let run: Run | undefined;
    try {
      const resumed = await this.isResumed(sessionId);
      await emit({ type: 'turn.started', turnId, model: session.model, ...(resumed ? { resumed } : {}) });
      if (resumed) log.info('resuming a turn another run left unfinished');
      if (watch.signal.aborted) throw new TurnCancelled();
      run = await this.prepare(sessionId, turnId, session, log, emit, watch.signal);
      await this.loop(run);
    } catch (error) {
      if (watch.signal.aborted) await this.cancelled(sessionId, turnId, log);
      else await this.fail(sessionId, turnId, error, log);
    } finally {
      watch.dispose();
      await this.deps.store.endTurn(sessionId, turnId);
    }
  }

  /** Steps of this turn already in the history: an earlier run of it stopped half way. */
  private async isResumed(sessionId: string): Promise<boolean> {
    const history = await this.deps.store.messages(sessionId);
    return lastUserMessage(history) < history.length - 1;
  }

  private async prepare(
    sessionId: string,
    turnId: string,
    session: TurnSession,
    log: Logger,
    emit: Run['emit'],
    cancel: AbortSignal,
  ): Promise<Run> {
    const instructions = await raceAbort(this.deps.instructions.load(session), cancel);
    await this.deps.store.saveInstructions(sessionId, instructions);
    const history = await this.deps.store.messages(sessionId);
    const turnMessages = history.slice(lastUserMessage(history) + 1);
    const guard = new LoopGuard(this.limits.loopRepeatLimit ?? 3, this.limits.repeatedErrorLimit ?? 3);
    guard.seed(turnMessages);
    const contextSize = await raceAbort(this.deps.models?.contextSize(session.model) ?? Promise.resolve(undefined), cancel);
    return {
      sessionId,
      turnId,
      session,
      log,
      emit,
      cancel,
      usage: { promptTokens: 0, completionTokens: 0 },
      iterations: turnMessages.filter((m) => m.role === 'assistant').length,
      startedAt: Date.now(),
      waitedMs: 0,
      guard,
      permissions: this.deps.permissions.forTurn({
        sessionId,
        turnId,
        ownerId: session.ownerId,
        workspaceId: session.workspaceId,
        signal: cancel,
        emit,
      }),
      systemPrompt: buildSystemPrompt(this.definitions, instructions),
      contextSize,
      tools: {
        workspaceId: session.workspaceId,
        files: this.deps.files,
        sandbox: this.deps.sandbox,
        signal: cancel,
        sandboxNetwork: session.sandboxNetwork,
        emitOutput: (callId, stream, text) => emit({ type: 'tool.output', turnId, callId, stream, text }),
      },
    };
  }

  private async loop(run: Run): Promise<void> {
    const cap = run.session.maxIterations ?? this.limits.maxIterations;
    let interruption = await this.runCalls(run, pendingToolCalls(await this.deps.store.messages(run.sessionId)));
    while (!interruption) {
      interruption = this.overBudget(run);
      if (!interruption && run.iterations >= cap) {
        interruption = { reason: 'iteration_limit', message: `it reached the limit of ${cap} model steps` };
      }
      if (interruption) break;
      run.iterations++;
      const step = await this.generate(run, true);
      if (step.kind === 'out_of_time') {
        interruption = this.timeBudgetSpent();
        break;
      }
      const result = step.result;
      const toolCalls = result.toolCalls.length > 0 ? result.toolCalls : undefined;
      await this.deps.store.appendMessage(run.sessionId, { role: 'assistant', content: result.text, toolCalls });
      if (!toolCalls) {
        await run.emit({ type: 'message.completed', turnId: run.turnId, content: result.text });
        await run.emit({ type: 'turn.completed', turnId: run.turnId, usage: run.usage, iterations: run.iterations });
        run.log.info({ iterations: run.iterations, usage: run.usage }, 'turn completed');
        return;
      }
      interruption = this.overBudget(run) ?? (await this.runCalls(run, toolCalls));
    }
    await this.summarise(run, interruption);
  }

  /** Ends an interrupted turn with the model's own account of it, generated without tools. */
  private async summarise(run: Run, interruption: Interruption): Promise<void> {
    run.log.warn({ reason: interruption.reason, iterations: run.iterations }, 'turn interrupted');
    await run.emit({ type: 'turn.interrupted', turnId: run.turnId, ...interruption });
    await this.closePending(run.sessionId, `the turn was interrupted: ${interruption.message}`);
    await this.deps.store.appendMessage(run.sessionId, { role: 'user', content: interruptionNote(interruption.message) });
    const step = await this.generate(run, false);
    const text = step.kind === 'done' ? step.result.text : '';
    await this.deps.store.appendMessage(run.sessionId, { role: 'assistant', content: text });
    await run.emit({ type: 'message.completed', turnId: run.turnId, content: text });
    await run.emit({
      type: 'turn.completed',
      turnId: run.turnId,
      usage: run.usage,
      iterations: run.iterations,
      stopReason: interruption.reason,
    });
  }

  /**
   * One generation, its deltas relayed into the log as they arrive. A cancel aborts it (and the
   * worker's request); so does the turn's time budget, when tools are on (the summary always runs).
   */
  private async generate(run: Run, withTools: boolean): Promise<{ kind: 'done'; result: GenerateResult } | { kind: 'out_of_time' }> {
    const history = await this.deps.store.messages(run.sessionId);
    const tools = withTools ? this.definitions : undefined;
    const prompt = await this.context.prompt(
      {
        sessionId: run.sessionId,
        turnId: run.turnId,
        model: run.session.model,
        contextSize: run.contextSize,
        systemPrompt: run.systemPrompt,
        tools,
        signal: run.cancel,
        emit: run.emit,
        onUsage: (usage) => addUsage(run.usage, usage),
        log: run.log,
      },
      history,
    );
    const stop = new AbortController();
    const onCancel = () => stop.abort();
    run.cancel.addEventListener('abort', onCancel, { once: true });
    const remaining = withTools ? this.remainingMs(run) : Infinity;
    const timer = Number.isFinite(remaining) ? setTimeout(() => stop.abort(), Math.max(0, remaining)) : undefined;
    let text = '';
    let result: GenerateResult | undefined;
    try {
      const stream = this.deps.inference.generate(
        {
          model: run.session.model,
          messages: prompt.messages,
          tools,
          sessionId: run.sessionId,
          maxTokens: this.limits.maxReplyTokens,
          requestId: randomUUID(),
        },
        stop.signal,
      );
      for await (const chunk of abortable(stream, stop.signal)) {
        if (chunk.type === 'delta') {
          text += chunk.text;
          if (chunk.text !== '') await run.emit({ type: 'message.delta', turnId: run.turnId, text: chunk.text });
        } else {
          result = chunk.result;
        }
      }
    } catch (error) {
      if (!(error instanceof AbortedError) || !stop.signal.aborted) throw error;
    } finally {
      clearTimeout(timer);
      run.cancel.removeEventListener('abort', onCancel);
    }
    if (stop.signal.aborted) {
      // What the user already saw streaming stays in the history too.
      if (text !== '') await this.deps.store.appendMessage(run.sessionId, { role: 'assistant', content: text });
      if (run.cancel.aborted) throw new TurnCancelled();
      return { kind: 'out_of_time' };
    }
    if (!result) throw new AppError(ErrorCode.GenerationFailed, 'The generation stream ended without a result');
    addUsage(run.usage, result.usage);
    await this.context.measure(run.sessionId, prompt, result.usage.promptTokens);
    return { kind: 'done', result };
  }

  /** Runs calls in order; returns an interruption (and runs no further calls) when a guard rail trips. */
  private async runCalls(run: Run, calls: ToolCall[]): Promise<Interruption | undefined> {
    for (const call of calls) {
      const looping = run.guard.beforeCall(call);
      if (looping) return looping;
      const overBudget = this.overBudget(run);
      if (overBudget) return overBudget;
      await run.emit({ type: 'tool.called', turnId: run.turnId, call });
      const outcome = await this.runCall(run, call);
      await this.deps.store.recordToolResult(run.sessionId, run.turnId, call, outcome);
      const repeated = run.guard.afterResult(outcome);
      if (repeated) return repeated;
    }
    return undefined;
  }

  private async runCall(run: Run, call: ToolCall): Promise<ToolOutcome> {
    const state = await this.deps.store.toolCallState(run.sessionId, call.id);
    if (state.kind === 'done') return state.outcome;
    if (state.kind === 'unknown') {
      return {
        isError: true,
        output: `${ErrorCode.Internal}: this call was started by a gateway that stopped before it reported; it may or may not have taken effect, so it was not run again. Check before retrying.`,
      };
    }
    const authorize = async (c: ToolCall) => {
      const authorization = await run.permissions.authorize(c);
      run.waitedMs += authorization.waitedMs;
      if (!authorization.allowed) return authorization;
      if (await this.deps.store.claimToolCall(run.sessionId, c.id)) return authorization;
      return { allowed: false as const, output: `${ErrorCode.Conflict}: this call is already running elsewhere` };
    };
    const running = runToolCall(this.deps.tools, call, run.tools, authorize);
    try {
      return await raceAbort(running, run.cancel);
    } catch (error) {
      if (!(error instanceof AbortedError)) throw error;
      // A permission wait closes its request and logs that within moments; a long sandbox run
      // gets the same signal and has its container killed (a short one runs to its end).
      await settleWithin(running, CANCEL_GRACE_MS);
      throw new TurnCancelled();
    }
  }

  private overBudget(run: Run): Interruption | undefined {
    const spent = run.usage.promptTokens + run.usage.completionTokens;
    const maxTokens = this.limits.maxTurnTokens;
    if (maxTokens !== undefined && spent >= maxTokens) {
      return { reason: 'token_budget', message: `it used ${spent} tokens, over the turn's budget of ${maxTokens}` };
    }
    return this.remainingMs(run) <= 0 ? this.timeBudgetSpent() : undefined;
  }

  private timeBudgetSpent(): Interruption {
    const seconds = Math.round((this.limits.maxTurnMs ?? 0) / 1000);
    return { reason: 'time_budget', message: `it ran past the turn's time budget of ${seconds} s` };
  }

  private remainingMs(run: Run): number {
    if (this.limits.maxTurnMs === undefined) return Infinity;
    return this.limits.maxTurnMs - (Date.now() - run.startedAt - run.waitedMs);
  }

  private async cancelled(sessionId: string, turnId: string, log: Logger): Promise<void> {
    log.info('turn cancelled');
    try {
      await this.closePending(sessionId, 'the turn was cancelled');
      const userId = await this.deps.cancellation.cancelledBy(turnId);
      await this.deps.store.appendEvent(sessionId, { type: 'turn.cancelled', turnId, userId });
    } catch (appendError) {
      log.error({ err: appendError }, 'could not log turn.cancelled');
    }
  }

  private async fail(sessionId: string, turnId: string, error: unknown, log: Logger): Promise<void> {
    const known = error instanceof AppError;
    const code = known ? error.code : ErrorCode.Internal;
    const message = known ? error.message : 'Internal error while running the turn';
    log.error({ err: error, code }, 'turn failed');
    try {
      await this.closePending(sessionId, `the turn failed with ${code}`);
      await this.deps.store.appendEvent(sessionId, { type: 'turn.failed', turnId, code, message });
    } catch (appendError) {
      log.error({ err: appendError }, 'could not log turn.failed');
    }
  }

  /** Every call gets a result, so the history stays well formed for the next turn. */
  private async closePending(sessionId: string, why: string): Promise<void> {
    for (const call of pendingToolCalls(await this.deps.store.messages(sessionId))) {
      const started = (await this.deps.store.toolCallState(sessionId, call.id)).kind !== 'new';
      const content = started ? `stopped while it ran (${why}); it may or may not have taken effect` : `not run: ${why}`;
      await this.deps.store.appendMessage(sessionId, { role: 'tool', toolCallId: call.id, name: call.name, content });
    }
  }
}

/** The user's message that opened the turn (runtime notes are not the user's). */
function lastUserMessage(history: readonly ChatMessage[]): number {
  return history.findLastIndex((m) => m.role === 'user' && !m.content.startsWith(RUNTIME_NOTE_PREFIX));
}

/** Calls of this turn's last assistant message that have no result yet (a turn cut off mid-step). */
export function pendingToolCalls(history: readonly ChatMessage[]): ToolCall[] {
  const lastAssistant = history.findLastIndex((m) => m.role === 'assistant');
  if (lastAssistant < history.findLastIndex((m) => m.role === 'user')) return [];
  const message = history[lastAssistant];
  if (!message || message.role !== 'assistant' || !message.toolCalls) return [];
  const answered = new Set(
    history.slice(lastAssistant + 1).flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])),
  );
  return message.toolCalls.filter((call) => !answered.has(call.id));
}
