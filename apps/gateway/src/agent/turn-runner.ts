import {
  AppError,
  type ChatMessage,
  ErrorCode,
  type GenerateResult,
  type RunTurnJob,
  type ToolCall,
  type ToolDefinition,
} from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { FileToolsPort, InferencePort, SandboxPort, TurnStore } from './ports';
import { buildSystemPrompt } from './system-prompt';
import type { AgentTool } from './tools/define-tool';
import { runToolCall } from './tools/run-tool-call';

export interface TurnRunnerDeps {
  store: TurnStore;
  inference: InferencePort;
  files: FileToolsPort;
  sandbox: SandboxPort;
  tools: ReadonlyMap<string, AgentTool>;
  logger: Logger;
}

type Usage = { promptTokens: number; completionTokens: number };

export interface TurnLimits {
  maxIterations: number;
  /** Cap on one model reply, so a model that never stops cannot hold a sequence forever. */
  maxReplyTokens?: number;
}

/**
 * The agent loop of one turn: generate, run the tool calls, feed the results back, until the
 * model answers without tools or the iteration cap is hit. Every message and event is persisted
 * before the next step, so a rerun (a stalled job picked up by another replica) continues from
 * the stored history.
 */
export class TurnRunner {
  private readonly definitions: ToolDefinition[];

  constructor(
    private readonly deps: TurnRunnerDeps,
    private readonly limits: TurnLimits,
  ) {
    this.definitions = [...deps.tools.values()].map((tool) => tool.definition);
  }

  async run(job: Pick<RunTurnJob, 'sessionId' | 'turnId'>): Promise<void> {
    const { sessionId, turnId } = job;
    const log = this.deps.logger.child({ sessionId, turnId });
    const session = await this.deps.store.session(sessionId);
    if (!session || session.activeTurnId !== turnId) {
      log.warn('turn is no longer active; skipping');
      return;
    }
    const emit = this.deps.store.appendEvent.bind(this.deps.store, sessionId);
    try {
      await emit({ type: 'turn.started', turnId, model: session.model });
      const usage: Usage = { promptTokens: 0, completionTokens: 0 };
      const context = { workspaceId: session.workspaceId, files: this.deps.files, sandbox: this.deps.sandbox };
      await this.runCalls(sessionId, turnId, pendingToolCalls(await this.deps.store.messages(sessionId)), context);
      for (let iteration = 1; iteration <= this.limits.maxIterations; iteration++) {
        const result = await this.generate(sessionId, turnId, session.model);
        usage.promptTokens += result.usage.promptTokens;
        usage.completionTokens += result.usage.completionTokens;
        const toolCalls = result.toolCalls.length > 0 ? result.toolCalls : undefined;
        await this.deps.store.appendMessage(sessionId, { role: 'assistant', content: result.text, toolCalls });
        if (!toolCalls) {
          await emit({ type: 'message.completed', turnId, content: result.text });
          await emit({ type: 'turn.completed', turnId, usage, iterations: iteration });
          log.info({ iterations: iteration, usage }, 'turn completed');
          return;
        }
        await this.runCalls(sessionId, turnId, toolCalls, context);
      }
      const message = `The turn stopped after ${this.limits.maxIterations} iterations without a final answer`;
      await emit({ type: 'turn.failed', turnId, code: ErrorCode.IterationLimit, message });
      log.warn({ iterations: this.limits.maxIterations }, 'turn hit the iteration limit');
    } catch (error) {
      await this.fail(sessionId, turnId, error, log);
    } finally {
      await this.deps.store.endTurn(sessionId, turnId);
    }
  }

  /** One generation, its deltas relayed into the log as they arrive. */
  private async generate(sessionId: string, turnId: string, model: string): Promise<GenerateResult> {
    const history = await this.deps.store.messages(sessionId);
    const messages: ChatMessage[] = [{ role: 'system', content: buildSystemPrompt(this.definitions) }, ...history];
    let result: GenerateResult | undefined;
    for await (const chunk of this.deps.inference.generate({
      model,
      messages,
      tools: this.definitions,
      sessionId,
      maxTokens: this.limits.maxReplyTokens,
    })) {
      if (chunk.type === 'delta') {
        if (chunk.text !== '') await this.deps.store.appendEvent(sessionId, { type: 'message.delta', turnId, text: chunk.text });
      } else {
        result = chunk.result;
      }
    }
    if (!result) throw new AppError(ErrorCode.GenerationFailed, 'The generation stream ended without a result');
    return result;
  }

  private async runCalls(sessionId: string, turnId: string, calls: ToolCall[], context: Parameters<typeof runToolCall>[2]) {
    for (const call of calls) {
      await this.deps.store.appendEvent(sessionId, { type: 'tool.called', turnId, call });
      const outcome = await runToolCall(this.deps.tools, call, context);
      await this.deps.store.appendEvent(sessionId, {
        type: 'tool.completed',
        turnId,
        callId: call.id,
        name: call.name,
        isError: outcome.isError,
        output: outcome.output,
      });
      await this.deps.store.appendMessage(sessionId, { role: 'tool', toolCallId: call.id, name: call.name, content: outcome.output });
    }
  }

  private async fail(sessionId: string, turnId: string, error: unknown, log: Logger): Promise<void> {
    const known = error instanceof AppError;
    const code = known ? error.code : ErrorCode.Internal;
    const message = known ? error.message : 'Internal error while running the turn';
    log.error({ err: error, code }, 'turn failed');
    try {
      // Every call gets a result, so the history stays well formed for the next turn.
      for (const call of pendingToolCalls(await this.deps.store.messages(sessionId))) {
        const content = `${code}: not run, the turn failed`;
        await this.deps.store.appendMessage(sessionId, { role: 'tool', toolCallId: call.id, name: call.name, content });
      }
      await this.deps.store.appendEvent(sessionId, { type: 'turn.failed', turnId, code, message });
    } catch (appendError) {
      log.error({ err: appendError }, 'could not log turn.failed');
    }
  }
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
