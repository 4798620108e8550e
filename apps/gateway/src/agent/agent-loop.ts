import { randomUUID } from 'node:crypto';
import {
  AppError,
  type ChatMessage,
  ErrorCode,
  type GenerateRequest,
  type GenerateResult,
  type SessionEvent,
  type ToolCall,
} from '@weft/contracts';
import { SpanKind, inSpan } from '@weft/telemetry';
import { AbortedError, abortable, raceAbort } from './abortable';
import { DeltaBatcher } from './delta-batcher';
import { ContextManager } from './context-manager';
import { type Interruption, LoopGuard } from './loop-guard';
import type { InferencePort, NotesPort, ThreadRef, ToolOutcome, TurnStore } from '../agent-core/ports';
import { RUNTIME_NOTE_PREFIX } from '../agent-core/runtime-note';
import { interruptionNote } from './system-prompt';
import { type LoopOutcome, TurnCancelled, type TurnContext } from '../agent-core/turn-context';
import { addUsage } from '../agent-core/usage';
import type { AgentTool, ToolContext } from '../agent-core/tools/define-tool';
import { runToolCall } from '../agent-core/tools/run-tool-call';
import { noteLines } from '../notes/note-lines';
import { LoadReportThrottle } from './load-report-throttle';
import { inferenceSessionKey } from './thread';

/** One conversation's loop: where it is stored, which model and tools it has, how far it may go. */
export interface LoopSpec {
  thread: ThreadRef;
  model: string;
  systemPrompt: string;
  tools: ReadonlyMap<string, AgentTool>;
  toolContext: ToolContext;
  maxIterations: number;
  /** The model's context length, when the workers announce it; no compaction without it. */
  contextSize: number | undefined;
}

export interface LoopLimits {
  maxReplyTokens?: number;
  loopRepeatLimit?: number;
  repeatedErrorLimit?: number;
  maxTurnTokens?: number;
  maxTurnMs?: number;
}

/** Reply room kept free in the context when no reply cap is configured. */
const DEFAULT_REPLY_RESERVE_TOKENS = 2048;
/** How long a cancel waits for the call in flight to wind down before the turn ends. */
const CANCEL_GRACE_MS = 1000;

type Step = { kind: 'done'; result: GenerateResult } | { kind: 'out_of_time' };

/**
 * The agent loop over one conversation: generate, check and run the tool calls, feed the results
 * back, until the model answers without tools. Guard rails (iteration cap, loop detection, token
 * and time budgets) interrupt it and ask the model for a summary, which is then its answer. Every
 * message and event is persisted before the next step, and tool outcomes are stored by call id,
 * so a rerun continues from the stored history and never runs a call twice.
 */
export class AgentLoop {
  private readonly context: ContextManager;

  constructor(
    private readonly store: TurnStore,
    private readonly inference: InferencePort,
    private readonly notes: NotesPort,
    private readonly limits: LoopLimits,
  ) {
    this.context = new ContextManager(store, inference, limits.maxReplyTokens ?? DEFAULT_REPLY_RESERVE_TOKENS);
  }

  async run(turn: TurnContext, spec: LoopSpec): Promise<LoopOutcome> {
    const history = await this.store.messages(spec.thread);
    const turnMessages = history.slice(lastUserMessage(history) + 1);
    const guard = new LoopGuard(this.limits.loopRepeatLimit ?? 3, this.limits.repeatedErrorLimit ?? 3);
    guard.seed(turnMessages);
    let iterations = turnMessages.filter((m) => m.role === 'assistant').length;
    let interruption = await this.runCalls(turn, spec, guard, pendingToolCalls(history));
    while (!interruption) {
      interruption = this.overBudget(turn);
      if (!interruption && iterations >= spec.maxIterations) {
        interruption = { reason: 'iteration_limit', message: `it reached the limit of ${spec.maxIterations} model steps` };
      }
      if (interruption) break;
      iterations++;
      const step = await this.generate(turn, spec, true);
      if (step.kind === 'out_of_time') {
        interruption = this.timeBudgetSpent();
        break;
      }
      const result = step.result;
      const toolCalls = result.toolCalls.length > 0 ? result.toolCalls : undefined;
      await this.store.appendMessage(spec.thread, { role: 'assistant', content: result.text, toolCalls });
      await this.keepNotes(turn, spec, result.text);
      if (!toolCalls) return { text: result.text, iterations };
      interruption = this.overBudget(turn) ?? (await this.runCalls(turn, spec, guard, toolCalls));
    }
    return { text: await this.summarise(turn, spec, interruption), iterations, stopReason: interruption.reason };
  }

  /**
   * One generation without tools in answer to a runtime note (plan this, list the subtasks, sum
   * up): the note and the answer are stored, and a rerun finds the answer instead of asking again.
   */
  async answer(turn: TurnContext, spec: LoopSpec, note: string, jsonSchema?: Record<string, unknown>): Promise<string> {
    const history = await this.store.messages(spec.thread);
    // Only this turn's notes count: an earlier planning turn asked the same question.
    const turnStart = lastUserMessage(history);
    const asked = history.findLastIndex((m, i) => i > turnStart && m.role === 'user' && m.content === note);
    const reply = asked >= 0 ? history[asked + 1] : undefined;
    if (reply?.role === 'assistant') return reply.content;
    if (asked < 0) await this.store.appendMessage(spec.thread, { role: 'user', content: note });
    const step = await this.generate(turn, spec, false, jsonSchema);
    const text = step.kind === 'done' ? step.result.text : '';
    await this.store.appendMessage(spec.thread, { role: 'assistant', content: text });
    await this.keepNotes(turn, spec, text);
    return text;
  }

  /** Runs one call the runtime makes itself (a chain's tool step), stored and checked like the model's. */
  async call(turn: TurnContext, spec: LoopSpec, call: ToolCall): Promise<ToolOutcome> {
    const history = await this.store.messages(spec.thread);
    if (!history.some((m) => m.role === 'assistant' && m.toolCalls?.some((c) => c.id === call.id))) {
      await this.store.appendMessage(spec.thread, { role: 'assistant', content: '', toolCalls: [call] });
    }
    await this.announce(turn, spec, call);
    const outcome = await this.runCall(turn, spec, call);
    const state = await this.store.toolCallState(spec.thread, call.id);
    if (state.kind !== 'done') await this.store.recordToolResult(spec.thread, turn.turnId, call, outcome);
    return outcome;
  }

  /** Every call gets a result, so the history stays well formed for the next turn. */
  async closePending(thread: ThreadRef, turnId: string, why: string): Promise<void> {
    for (const call of pendingToolCalls(await this.store.messages(thread))) {
      const started = (await this.store.toolCallState(thread, call.id)).kind !== 'new';
      const output = started ? `stopped while it ran (${why}); it may or may not have taken effect` : `not run: ${why}`;
      // Recorded as a result with its `tool.completed`: a call whose worker died mid-call was
      // otherwise left in the log as a `tool.called` no client ever saw the end of.
      await this.store.recordToolResult(thread, turnId, call, { isError: true, output });
    }
  }

  /** Ends an interrupted loop with the model's own account of it, generated without tools. */
  private async summarise(turn: TurnContext, spec: LoopSpec, interruption: Interruption): Promise<string> {
    turn.log.warn({ reason: interruption.reason, thread: spec.thread.threadId }, 'loop interrupted');
    await this.emit(turn, spec, { type: 'turn.interrupted', turnId: turn.turnId, ...interruption });
    await this.closePending(spec.thread, turn.turnId, `the turn was interrupted: ${interruption.message}`);
    await this.store.appendMessage(spec.thread, { role: 'user', content: interruptionNote(interruption.message) });
    const step = await this.generate(turn, spec, false);
    const text = step.kind === 'done' ? step.result.text : '';
    await this.store.appendMessage(spec.thread, { role: 'assistant', content: text });
    await this.keepNotes(turn, spec, text);
    return text;
  }

  /**
   * One generation, its deltas relayed into the log as they arrive. A cancel aborts it (and the
   * worker's request); so does the turn's time budget, when tools are on (summaries always run).
   */
  private generate(turn: TurnContext, spec: LoopSpec, withTools: boolean, jsonSchema?: Record<string, unknown>): Promise<Step> {
    // One span per model step: token counts, never the prompt or the reply.
    const attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': spec.model };
    return inSpan(`chat ${spec.model}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
      const step = await this.generateStep(turn, spec, withTools, jsonSchema);
      span?.setAttribute('weft.step.outcome', step.kind);
      if (step.kind === 'done') {
        span?.setAttributes({ 'gen_ai.usage.input_tokens': step.result.usage.promptTokens, 'gen_ai.usage.output_tokens': step.result.usage.completionTokens });
      }
      return step;
    });
  }

  private async generateStep(turn: TurnContext, spec: LoopSpec, withTools: boolean, jsonSchema?: Record<string, unknown>): Promise<Step> {
    const history = await this.store.messages(spec.thread);
    const tools = withTools ? [...spec.tools.values()].map((tool) => tool.definition) : undefined;
    const prompt = await this.context.prompt(
      {
        thread: spec.thread,
        turnId: turn.turnId,
        model: spec.model,
        contextSize: spec.contextSize,
        systemPrompt: spec.systemPrompt,
        tools,
        signal: turn.cancel,
        emit: (event) => this.emit(turn, spec, event),
        onUsage: (usage) => addUsage(turn.usage, usage),
        userId: turn.session.ownerId,
        log: turn.log,
      },
      history,
    );
    const stop = new AbortController();
    const onCancel = () => stop.abort();
    turn.cancel.addEventListener('abort', onCancel, { once: true });
    // A cancel that came while the prompt was being built has fired already: no event will follow.
    if (turn.cancel.aborted) stop.abort();
    const remaining = withTools ? this.remainingMs(turn) : Infinity;
    const timer = Number.isFinite(remaining) ? setTimeout(() => stop.abort(), Math.max(0, remaining)) : undefined;
    let text = '';
    let result: GenerateResult | undefined;
    const request: GenerateRequest = {
      model: spec.model,
      messages: prompt.messages,
      tools,
      sessionId: inferenceSessionKey(spec.thread),
      maxTokens: this.limits.maxReplyTokens,
      requestId: randomUUID(),
      user: { id: turn.session.ownerId },
      ...(jsonSchema ? { jsonSchema } : {}),
    };
    // A reply in a JSON schema is for the runtime (the planner's list of subtasks), not the reader:
    // no client shows it as text, so its deltas (and any resync of them) stay out of the log.
    const relay = jsonSchema === undefined;
    const deltas = new DeltaBatcher((delta) => this.emit(turn, spec, { type: 'message.delta', turnId: turn.turnId, text: delta }));
    let deltaWriteFailure: { error: unknown } | undefined;
    const loadReports = new LoadReportThrottle();
    let resumed: { streamedChars: number; pausedMs: number } | undefined;
    try {
      for await (const chunk of abortable(this.inference.generate(request, stop.signal, (info) => (resumed = info)), stop.signal)) {
        if (resumed) {
          // Its worker died mid-stream; another goes on from what streamed. Said after the deltas before it.
          await deltas.close();
          await this.emit(turn, spec, { type: 'generation.resumed', turnId: turn.turnId, model: spec.model, ...resumed });
          resumed = undefined;
        }
        if (chunk.type === 'delta') {
          text += chunk.text;
          if (relay) deltas.push(chunk.text);
        } else if (chunk.type === 'model.loading') {
          if (loadReports.worthTelling(chunk.progress)) {
            await this.emit(turn, spec, { type: 'model.loading', turnId: turn.turnId, model: chunk.model, progress: chunk.progress });
          }
        } else {
          result = chunk.result;
        }
      }
    } catch (error) {
      if (!(error instanceof AbortedError) || !stop.signal.aborted) throw error;
    } finally {
      clearTimeout(timer);
      turn.cancel.removeEventListener('abort', onCancel);
      // What streamed so far is written before anything else of the turn, whatever happened.
      await deltas.close().catch((error: unknown) => (deltaWriteFailure = { error }));
    }
    if (deltaWriteFailure) throw deltaWriteFailure.error;
    if (stop.signal.aborted) {
      // What the user already saw streaming stays in the history too.
      if (text !== '') await this.store.appendMessage(spec.thread, { role: 'assistant', content: text });
      if (turn.cancel.aborted) throw new TurnCancelled();
      return { kind: 'out_of_time' };
    }
    if (!result) throw new AppError(ErrorCode.GenerationFailed, 'The generation stream ended without a result');
    // Core NATS delivers at most once: deltas sent while the gateway reconnected are gone, the
    // result is not. Clients swap what they pieced together for the whole text.
    if (relay && result.text !== text) await this.emit(turn, spec, { type: 'message.resync', turnId: turn.turnId, text: result.text });
    addUsage(turn.usage, result.usage);
    await this.context.measure(spec.thread, prompt, result.usage.promptTokens);
    return { kind: 'done', result };
  }

  /** Runs calls in order; returns an interruption (and runs no further calls) when a guard rail trips. */
  private async runCalls(turn: TurnContext, spec: LoopSpec, guard: LoopGuard, calls: ToolCall[]): Promise<Interruption | undefined> {
    for (const call of calls) {
      const looping = guard.beforeCall(call);
      if (looping) return looping;
      const overBudget = this.overBudget(turn);
      if (overBudget) return overBudget;
      await this.announce(turn, spec, call);
      const outcome = await this.runCall(turn, spec, call);
      await this.store.recordToolResult(spec.thread, turn.turnId, call, outcome);
      const repeated = guard.afterResult(outcome);
      if (repeated) return repeated;
    }
    return undefined;
  }

  /**
   * `tool.called`, once per call: a run resumed after a park (or another replica's death) finds
   * the call it stopped in already announced. Logged before it is marked, so a crash in between
   * repeats the event rather than losing it.
   */
  private async announce(turn: TurnContext, spec: LoopSpec, call: ToolCall): Promise<void> {
    if (await this.store.wasAnnounced(spec.thread, call.id)) return;
    await this.emit(turn, spec, { type: 'tool.called', turnId: turn.turnId, call });
    await this.store.markAnnounced(spec.thread, call.id);
  }

  private async runCall(turn: TurnContext, spec: LoopSpec, call: ToolCall): Promise<ToolOutcome> {
    const state = await this.store.toolCallState(spec.thread, call.id);
    if (state.kind === 'done') return state.outcome;
    // A delegation keeps its own steps, so a rerun carries it on; any other call may have acted.
    const resumable = state.kind === 'unknown' && spec.tools.get(call.name)?.resumable === true;
    if (state.kind === 'unknown' && !resumable) {
      return {
        isError: true,
        output: `${ErrorCode.Internal}: this call was started by a gateway that stopped before it reported; it may or may not have taken effect, so it was not run again. Check before retrying.`,
      };
    }
    const authorize = async (c: ToolCall) => {
      const authorization = await turn.permissions.authorize(c);
      turn.waitedMs += authorization.waitedMs;
      if (!authorization.allowed || resumable) return authorization;
      if (await this.store.claimToolCall(spec.thread, c.id)) return authorization;
      return { allowed: false as const, output: `${ErrorCode.Conflict}: this call is already running elsewhere` };
    };
    // The tool's span holds its permission wait and the worker's (tools, sandbox) span under it.
    const running = inSpan(`tool ${call.name}`, { attributes: { 'gen_ai.tool.name': call.name, 'gen_ai.tool.call.id': call.id } }, async (span) => {
      const outcome = await runToolCall(spec.tools, call, spec.toolContext, authorize);
      span?.setAttribute('weft.tool.is_error', outcome.isError === true);
      return outcome;
    });
    try {
      return await raceAbort(running, turn.cancel);
    } catch (error) {
      if (!(error instanceof AbortedError)) throw error;
      // A permission wait closes its request and logs that within moments; a sandbox run gets
      // the same signal: a long run has its container killed, a short one its command.
      await settleWithin(running, CANCEL_GRACE_MS);
      throw new TurnCancelled();
    }
  }

  /** `Remember: …` and `Note for …: …` lines of an answer become shared notes of the workspace. */
  private async keepNotes(turn: TurnContext, spec: LoopSpec, text: string): Promise<void> {
    for (const line of noteLines(text)) {
      const note = await this.notes.add(turn.session.workspaceId, { text: line, source: 'answer', author: spec.model });
      await turn.emit({ type: 'note.saved', turnId: turn.turnId, noteId: note.id, text: note.text, source: 'answer', model: spec.model });
    }
  }

  /** Events of another conversation than the session's own say which one. */
  private emit(turn: TurnContext, spec: LoopSpec, event: SessionEvent): Promise<void> {
    const threaded = spec.thread.threadId && 'turnId' in event ? { ...event, threadId: spec.thread.threadId } : event;
    return turn.emit(threaded as SessionEvent);
  }

  private overBudget(turn: TurnContext): Interruption | undefined {
    const spent = turn.usage.promptTokens + turn.usage.completionTokens;
    const maxTokens = this.limits.maxTurnTokens;
    if (maxTokens !== undefined && spent >= maxTokens) {
      return { reason: 'token_budget', message: `it used ${spent} tokens, over the turn's budget of ${maxTokens}` };
    }
    return this.remainingMs(turn) <= 0 ? this.timeBudgetSpent() : undefined;
  }

  private timeBudgetSpent(): Interruption {
    const seconds = Math.round((this.limits.maxTurnMs ?? 0) / 1000);
    return { reason: 'time_budget', message: `it ran past the turn's time budget of ${seconds} s` };
  }

  private remainingMs(turn: TurnContext): number {
    if (this.limits.maxTurnMs === undefined) return Infinity;
    return this.limits.maxTurnMs - (Date.now() - turn.startedAt - turn.waitedMs);
  }
}

async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([promise.then(() => undefined, () => undefined), deadline]);
  clearTimeout(timer);
}

/** The user's message that opened the turn (runtime notes are not the user's). */
export function lastUserMessage(history: readonly ChatMessage[]): number {
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
