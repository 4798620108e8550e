import { AppError, ErrorCode, type RunTurnJob } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { raceAbort } from './abortable';
import { AgentLoop, type LoopSpec, lastUserMessage } from './agent-loop';
import { ChainRunner } from './chains/chain-runner';
import type { ChainsPort } from '../chains/chain-loader';
import { Planner } from './planner';
import type {
  WorkspaceQuotaPort,
  CancellationPort,
  FileToolsPort,
  InferencePort,
  InstructionsPort,
  ModelContextPort,
  NotesPort,
  PermissionPort,
  SandboxPort,
  ThreadRef,
  ToolOutcome,
  TurnAccountingPort,
  TurnSession,
  TurnPermissions,
  TurnStore,
} from '../agent-core/ports';
import { type AgentRole, buildSystemPrompt } from './system-prompt';
import { delegationThreadId } from './thread';
import { type LoopOutcome, TurnCancelled, type TurnContext, TurnParked, type TurnProgressReport } from '../agent-core/turn-context';
import type { AgentTool, QuotaPort } from '../agent-core/tools/define-tool';
import { toolsFor } from '../agent-core/tools/runtime-tools';

export { pendingToolCalls } from './agent-loop';

/** Binds the quota to the session's owner for the tools. */
function bindQuota(quota: WorkspaceQuotaPort, ownerId: string): QuotaPort {
  return { assertCanWrite: () => quota.assertCanWrite(ownerId), measure: () => quota.measure(ownerId) };
}

export interface TurnRunnerDeps {
  store: TurnStore;
  inference: InferencePort;
  files: FileToolsPort;
  sandbox: SandboxPort;
  /** The workers' tools; the runtime adds `remember`, and `delegate` where a senior has a junior. */
  tools: ReadonlyMap<string, AgentTool>;
  permissions: PermissionPort;
  instructions: InstructionsPort;
  cancellation: CancellationPort;
  notes: NotesPort;
  chains: ChainsPort;
  /** Context lengths and roles of the models; without it nothing is compacted and nobody delegates. */
  models?: ModelContextPort;
  /** The per-user workspace quota; without it writes are not held to one. */
  quota?: WorkspaceQuotaPort;
  /** Usage and running-turn places; without it turns are not counted. */
  accounting?: TurnAccountingPort;
  /** The session's MCP servers' tools; without it there are none. */
  mcp?: McpToolsPort;
  logger: Logger;
}

export interface McpToolsPort {
  forTurn(session: TurnSession & { sessionId: string }): Promise<{
    tools: ReadonlyMap<string, AgentTool>;
    problems: ReadonlyArray<{ name: string; scope: 'server' | 'user' | 'workspace'; state: string; problem?: string }>;
  }>;
}

export interface TurnLimits {
  /** Model steps per loop, unless the session sets its own. */
  maxIterations: number;
  /** Cap on one model reply, so a model that never stops cannot hold a sequence forever. */
  maxReplyTokens?: number;
  /** Identical calls in a row that count as a loop. */
  loopRepeatLimit?: number;
  /** Identical errors in one loop that count as going round in circles. */
  repeatedErrorLimit?: number;
  /** Prompt plus completion tokens one turn may spend. */
  maxTurnTokens?: number;
  /** Wall time of one turn, not counting time spent waiting for a permission answer. */
  maxTurnMs?: number;
}

type JobRef = Pick<RunTurnJob, 'sessionId' | 'turnId'> & Partial<RunTurnJob>;

/** How a run of a turn ended: the turn is over, or it is parked until a person answers. */
export type TurnRunOutcome =
  | { kind: 'ended' }
  | { kind: 'parked'; requestId: string; wakeAt: number; state: NonNullable<RunTurnJob['parked']> };

/**
 * Runs one turn: the plain tool loop, planning mode (a plan, subtasks each in their own loop) or
 * a chain, on the session's model or the one the job names. The loops persist every step, so a
 * rerun (a stalled job picked up by another replica) continues from the stored history and never
 * runs a call twice; the turn always ends with `turn.completed`, `turn.failed` or `turn.cancelled`.
 */
export class TurnRunner {
  private readonly loop: AgentLoop;
  private readonly planner: Planner;
  private readonly chainRunner: ChainRunner;
  private readonly mcpByTurn = new WeakMap<TurnContext, Promise<{ tools: ReadonlyMap<string, AgentTool>; unavailable: string[] }>>();

  constructor(
    private readonly deps: TurnRunnerDeps,
    private readonly limits: TurnLimits,
  ) {
    this.loop = new AgentLoop(deps.store, deps.inference, deps.notes, limits);
    const specFor = (turn: TurnContext, thread: ThreadRef, role: AgentRole) => this.spec(turn, thread, turn.model, role);
    this.planner = new Planner(this.loop, deps.store, specFor);
    this.chainRunner = new ChainRunner(this.loop, deps.store, deps.chains, specFor);
  }

  /**
   * Runs the turn to its end, or until it parks: with `parkAfterMs`, a permission question that
   * nobody answers within that time stops this run with everything stored, and the caller parks
   * the job until the answer comes; the next run carries on from there.
   */
  async run(
    input: JobRef,
    reportProgress: (report: TurnProgressReport) => Promise<void> = async () => undefined,
    options: { parkAfterMs?: number } = {},
  ): Promise<TurnRunOutcome> {
    const job: RunTurnJob = { kind: 'run-turn', userId: '', mode: 'chat', ...input };
    const { sessionId, turnId } = job;
    const log = this.deps.logger.child({ sessionId, turnId });
    const session = await this.deps.store.session(sessionId);
    if (!session || session.activeTurnId !== turnId) {
      log.warn('turn is no longer active; skipping');
      return { kind: 'ended' };
    }
    const watch = await this.deps.cancellation.watch(turnId);
    const model = job.model ?? session.model;
    let toolCalls = job.parked?.toolCalls ?? 0;
    let accounted = false;
    let parked: TurnRunOutcome | undefined;
    // Before the turn's last event: a client that sees it end may start its next turn at once.
    const account = async () => {
      if (accounted) return;
      accounted = true;
      await this.deps.accounting
        ?.turnEnded({ userId: session.ownerId, sessionId, turnId, model, toolCalls })
        .catch((err: unknown) => log.error({ err }, 'could not account for the turn'));
    };
    const emit: TurnContext['emit'] = async (event) => {
      if (event.type === 'tool.called') toolCalls++;
      if (event.type === 'turn.completed' || event.type === 'turn.failed' || event.type === 'turn.cancelled') await account();
      return this.deps.store.appendEvent(sessionId, event);
    };
    const permissions = this.deps.permissions.forTurn({
      sessionId,
      turnId,
      ownerId: session.ownerId,
      workspaceId: session.workspaceId,
      signal: watch.signal,
      emit,
      ...(options.parkAfterMs !== undefined ? { parkAfterMs: options.parkAfterMs } : {}),
    });
    // A parked turn carries on where it stopped: the same usage and time budget, no second start.
    const carried = job.parked;
    const usage = carried ? { ...carried.usage } : { promptTokens: 0, completionTokens: 0 };
    const startedAt = Date.now() - (carried?.activeMs ?? 0);
    let turn: TurnContext | undefined;
    try {
      if (carried) log.info({ parkedTimes: carried.count }, 'resuming a parked turn');
      else {
        const resumed = await this.isResumed(sessionId);
        await emit({ type: 'turn.started', turnId, model, ...(resumed ? { resumed } : {}) });
        if (resumed) log.info('resuming a turn another run left unfinished');
      }
      if (watch.signal.aborted) throw new TurnCancelled();
      const instructions = await raceAbort(this.deps.instructions.load(session), watch.signal);
      await this.deps.store.saveInstructions(sessionId, instructions);
      turn = {
        job,
        sessionId,
        turnId,
        session,
        model,
        log,
        emit,
        cancel: watch.signal,
        usage,
        startedAt,
        waitedMs: 0,
        instructions,
        reportProgress,
        permissions,
      };
      const outcome = await this.runMode(turn);
      await emit({ type: 'message.completed', turnId, content: outcome.text });
      await emit({
        type: 'turn.completed',
        turnId,
        usage: turn.usage,
        iterations: outcome.iterations,
        ...(outcome.stopReason ? { stopReason: outcome.stopReason } : {}),
      });
      log.info({ iterations: outcome.iterations, usage: turn.usage, mode: job.mode }, 'turn completed');
    } catch (error) {
      if (error instanceof TurnParked && !watch.signal.aborted) {
        const activeMs = Date.now() - startedAt - (turn?.waitedMs ?? 0);
        parked = {
          kind: 'parked',
          requestId: error.requestId,
          wakeAt: error.wakeAt,
          state: { usage, activeMs: Math.max(0, activeMs), toolCalls, count: (carried?.count ?? 0) + 1 },
        };
        log.info({ requestId: error.requestId }, 'turn parked until the permission question is answered');
      } else if (watch.signal.aborted) await this.cancelled(sessionId, turnId, emit, log, permissions);
      else await this.fail(sessionId, turnId, error, emit, log);
    } finally {
      watch.dispose();
      if (!parked) {
        await this.deps.store.endTurn(sessionId, turnId);
        await account();
      }
    }
    return parked ?? { kind: 'ended' };
  }

  private async runMode(turn: TurnContext): Promise<LoopOutcome> {
    const main: ThreadRef = { sessionId: turn.sessionId };
    switch (turn.job.mode) {
      case 'chat':
        await turn.reportProgress({ phase: 'running' });
        return this.loop.run(turn, await this.spec(turn, main, turn.model, 'agent'));
      case 'plan':
        return this.planner.run(turn);
      case 'chain':
        return this.chainRunner.run(turn);
    }
  }

  /** Steps of this turn already in the history: an earlier run of it stopped half way. */
  private async isResumed(sessionId: string): Promise<boolean> {
    const history = await this.deps.store.messages({ sessionId });
    return lastUserMessage(history) < history.length - 1;
  }

  /** One loop's model, tools and prompt; a senior gets `delegate` when a junior is being served. */
  private async spec(turn: TurnContext, thread: ThreadRef, model: string, role: AgentRole): Promise<LoopSpec> {
    const models = this.deps.models;
    const [contextSize, notes, roles, junior] = await raceAbort(
      Promise.all([
        models?.contextSize(model),
        this.deps.notes.list(turn.session.workspaceId),
        models ? models.roles(model) : Promise.resolve<string[]>([]),
        models?.withRole('junior'),
      ]),
      turn.cancel,
    );
    const canDelegate = role !== 'junior' && roles.includes('senior') && junior !== undefined && junior !== model;
    const mcp = await raceAbort(this.mcpTools(turn), turn.cancel);
    const tools = new Map([...mcp.tools, ...toolsFor(this.deps.tools, canDelegate)]);
    const definitions = [...tools.values()].map((tool) => tool.definition);
    return {
      thread,
      model,
      systemPrompt: buildSystemPrompt(definitions, turn.instructions, notes, role, mcp.unavailable),
      tools,
      maxIterations: turn.session.maxIterations ?? this.limits.maxIterations,
      contextSize,
      toolContext: {
        workspaceId: turn.session.workspaceId,
        files: this.deps.files,
        sandbox: this.deps.sandbox,
        signal: turn.cancel,
        sandboxNetwork: turn.session.sandboxNetwork,
        session: { sessionId: turn.sessionId, ownerId: turn.session.ownerId },
        sandboxWorkspace: turn.session.sandboxWorkspace ?? 'read-only',
        ...(turn.session.sandboxImage ? { sandboxImage: turn.session.sandboxImage } : {}),
        ...(this.deps.quota ? { quota: bindQuota(this.deps.quota, turn.session.ownerId) } : {}),
        emitOutput: (callId, stream, text) =>
          turn.emit({ type: 'tool.output', turnId: turn.turnId, callId, stream, text, ...(thread.threadId ? { threadId: thread.threadId } : {}) }),
        remember: async (text) => {
          const note = await this.deps.notes.add(turn.session.workspaceId, { text, source: 'tool', author: model });
          await turn.emit({ type: 'note.saved', turnId: turn.turnId, noteId: note.id, text: note.text, source: 'tool', model });
          return note;
        },
        ...(canDelegate && junior ? { delegate: (task, callId) => this.delegate(turn, thread, model, junior, task, callId) } : {}),
      },
    };
  }

  /**
   * The session's MCP tools, asked for once per turn (every loop of it shares them); a server
   * that cannot be used is told to the user as an event and to the model in its prompt.
   */
  private mcpTools(turn: TurnContext): Promise<{ tools: ReadonlyMap<string, AgentTool>; unavailable: string[] }> {
    let found = this.mcpByTurn.get(turn);
    if (!found) {
      found = this.findMcpTools(turn);
      this.mcpByTurn.set(turn, found);
    }
    return found;
  }

  private async findMcpTools(turn: TurnContext): Promise<{ tools: ReadonlyMap<string, AgentTool>; unavailable: string[] }> {
    if (!this.deps.mcp) return { tools: new Map(), unavailable: [] };
    try {
      const { tools, problems } = await this.deps.mcp.forTurn({ ...turn.session, sessionId: turn.sessionId });
      for (const p of problems) {
        const state = p.state === 'refused' || p.state === 'invalid' ? p.state : 'failed';
        await turn.emit({ type: 'mcp.server.unavailable', turnId: turn.turnId, server: p.name, scope: p.scope, state, problem: p.problem ?? state });
      }
      return { tools, unavailable: problems.map((p) => `${p.name}: ${p.problem ?? p.state}`) };
    } catch (error) {
      // Reading `.weft/mcp.json` failed (the tools worker is away): the turn goes on without MCP.
      this.deps.logger.warn({ err: error, sessionId: turn.sessionId }, 'MCP servers could not be listed');
      return { tools: new Map(), unavailable: [`(all): ${error instanceof Error ? error.message : String(error)}`] };
    }
  }

  /**
   * The junior runs its own loop on the same workspace, with the same permissions, in a thread of
   * its own; its answer goes back to the senior as the call's result, for review.
   */
  private async delegate(turn: TurnContext, parent: ThreadRef, senior: string, junior: string, task: string, callId: string): Promise<ToolOutcome> {
    const threadId = delegationThreadId(parent.threadId ? `${parent.threadId}.${callId}` : callId);
    const thread: ThreadRef = { sessionId: turn.sessionId, threadId };
    const handOff = { turnId: turn.turnId, threadId, callId, from: senior, to: junior };
    if ((await this.deps.store.messages(thread)).length === 0) {
      await turn.emit({ type: 'delegation.started', ...handOff, task });
      await this.deps.store.appendMessage(thread, { role: 'user', content: task });
    }
    const outcome = await this.loop.run(turn, await this.spec(turn, thread, junior, 'junior'));
    const status = outcome.stopReason ? 'stopped' : 'completed';
    await turn.emit({ type: 'delegation.completed', ...handOff, status, result: outcome.text });
    const stopped = outcome.stopReason ? ` It was stopped early (${outcome.stopReason}).` : '';
    return {
      isError: false,
      output: [
        `The junior model (${junior}) reports:${stopped}`,
        '',
        outcome.text,
        '',
        'Review this before you answer the user: check the files it changed, and fix or redo what is wrong.',
      ].join('\n'),
    };
  }

  private async cancelled(sessionId: string, turnId: string, emit: TurnContext['emit'], log: Logger, permissions: TurnPermissions): Promise<void> {
    log.info('turn cancelled');
    try {
      await permissions.cancelOpenRequests();
      await this.loop.closePending({ sessionId }, turnId, 'the turn was cancelled');
      const userId = await this.deps.cancellation.cancelledBy(turnId);
      await emit({ type: 'turn.cancelled', turnId, userId });
    } catch (appendError) {
      log.error({ err: appendError }, 'could not log turn.cancelled');
    }
  }

  private async fail(sessionId: string, turnId: string, error: unknown, emit: TurnContext['emit'], log: Logger): Promise<void> {
    const known = error instanceof AppError;
    const code = known ? error.code : ErrorCode.Internal;
    const message = known ? error.message : 'Internal error while running the turn';
    log.error({ err: error, code }, 'turn failed');
    try {
      await this.loop.closePending({ sessionId }, turnId, `the turn failed with ${code}`);
      await emit({ type: 'turn.failed', turnId, code, message });
    } catch (appendError) {
      log.error({ err: appendError }, 'could not log turn.failed');
    }
  }
}
