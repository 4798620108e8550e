import { AppError, ErrorCode, type ChatMessage, type GenerateRequest, type GenerateResult, type ToolCall } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { EmbedCall, Embedded, GenerateCall, KvStateEvent } from '../drivers/inference-driver';
import type { LlamaModelConfig } from '../registry/models-config.schema';
import type { JsonSchema } from '../tool-calls/grammar-schema';
import { toToolCalls, type RawToolCall } from '../tool-calls/to-tool-calls';
import {
  forcedCallInstruction,
  forcedCallSchema,
  grammarLimits,
  replyMode,
  type ReplyMode,
} from '../tool-calls/tool-choice';
import { asWholeReply, withReplyPrefix } from '../generate/continuation';
import { toChatFunctions, toChatHistory } from './chat-history';
import { renderContextState } from './context-state-memo';
import { EMBEDDING_CONTEXT_MAX, EmbeddingRunner } from './embedding-runner';
import { resolveStopTriggers, weftLoopBlocker } from './generation-loop/stop-triggers';
import { runWeftLoop } from './generation-loop/weft-loop';
import { WeftSetup } from './generation-loop/weft-setup';
import { buildJsonSchemaGrammar } from './json-grammar-builder';
import { foldMidConversationSystem, holdsMidConversationSystem } from './mid-system';
import type { ChatWrapper, LlamaBackend, LlamaContext, LlamaContextSequence, LlamaModel, NodeLlamaCpp } from './llama-runtime';
import { assertPromptChars, commonPrefixLength, fitPrompt, promptChars } from './prompt-fit';
import { resolveSampling } from './sampling';
import { SequencePool, type PoolStats, type SequenceLease } from './sequence-pool';
import type { SessionStateStore } from './session-state-store';

type ChatHistory = ReturnType<typeof toChatHistory>;
/** A compiled grammar; node-llama-cpp's JSON-schema grammar is one. */
type JsonGrammar = InstanceType<NodeLlamaCpp['LlamaGrammar']>;
type StopReason = 'eogToken' | 'stopGenerationTrigger' | 'functionCalls' | 'maxTokens' | 'abort' | 'customStopTrigger';
type ContextState = ReturnType<ChatWrapper['generateContextState']>;
/** What generates a reply token by token (INFERENCE_GENERATION_LOOP). */
export type GenerationLoop = 'llamachat' | 'weft';
/** A reply as LlamaChat gives it, whichever loop made it. */
interface Reply {
  response: string;
  functionCalls?: readonly { functionName: string; params: unknown }[];
  metadata: { stopReason: string; stopText?: string; customStopTrigger?: readonly unknown[] };
}

/** Compiled grammars kept per model (JSON-schema replies and forced tool calls repeat). */
const GRAMMAR_CACHE_SIZE = 32;

interface Rendered {
  history: ChatHistory;
  /** The history as rendered: ending in the model's reply, as LlamaChat ends it before it renders. */
  rendered: ChatHistory;
  functions: ReturnType<typeof toChatFunctions>;
  tokens: number[];
  /** The chat wrapper's render: its stop triggers and how the reply may begin. */
  state: ContextState;
}

/**
 * One GGUF in memory: its context, its chat wrapper (resolved once) and a pool of sequences.
 * A session's sequence keeps its tokens between requests, so node-llama-cpp evaluates only what
 * follows the longest common prefix; evicted sessions can be saved to disk and restored.
 */
export class LoadedModel {
  private readonly pool: SequencePool<LlamaContextSequence>;
  private readonly grammars = new Map<string, Promise<JsonGrammar>>();
  /** Created on the first embedding request. */
  private embeddings?: EmbeddingRunner;
  /** The chat template renders a system message after a user turn in place (probed once). */
  private readonly holdsMidSystem: boolean;
  /** What Weft's loop needs from the chat template (call syntax and grammars, start text). */
  private readonly weft: WeftSetup;

  constructor(
    private readonly backend: LlamaBackend,
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    private readonly chatWrapper: ChatWrapper,
    private readonly config: LlamaModelConfig,
    private readonly log: Logger,
    private readonly states?: SessionStateStore,
    private readonly onKvState: (event: KvStateEvent) => void = () => undefined,
    private readonly loop: GenerationLoop = 'weft',
  ) {
    const sequences = Array.from({ length: context.totalSequences }, () => context.getSequence());
    this.pool = new SequencePool(sequences, config.maxQueue, config.expressSequences, states !== undefined);
    this.holdsMidSystem = holdsMidConversationSystem(chatWrapper);
    this.weft = new WeftSetup(backend, model, chatWrapper);
  }

  get contextSize(): number {
    return this.context.contextSize;
  }

  stats(): PoolStats {
    const stats = this.pool.stats();
    const saved = this.states?.sessions() ?? [];
    return { ...stats, sessions: [...new Set([...stats.sessions, ...saved])] };
  }

  async generate(call: GenerateCall): Promise<GenerateResult> {
    const { continueFrom, completion, maxTokens } = call.request;
    if (continueFrom === undefined) return completion ? this.complete(call.request, completion, call.onDelta, call.signal) : this.chat(call);
    // The reply's bound covers what the lost worker streamed.
    const prefixTokens = this.model.tokenize(continueFrom).length;
    const request = { ...call.request, ...(maxTokens === undefined ? {} : { maxTokens: Math.max(maxTokens - prefixTokens, 1) }) };
    const result = completion
      ? await this.complete(request, { ...completion, prompt: completion.prompt + continueFrom }, call.onDelta, call.signal)
      : await this.chat({ ...call, request });
    return asWholeReply(result, continueFrom, prefixTokens);
  }

  /** A chat reply; one continued from `continueFrom` has it as the open last assistant turn. */
  private async chat({ request, onDelta, signal }: GenerateCall): Promise<GenerateResult> {
    const started = performance.now();
    const mode = replyMode(request);
    const limits = grammarLimits(
      mode.kind === 'json' ? mode.schema : mode.kind === 'text' ? [] : mode.tools,
      Math.min(request.maxTokens ?? this.contextSize, this.contextSize),
    );
    const functions = mode.kind === 'tools' ? toChatFunctions(mode.tools, limits) : undefined;
    const fitted = fitPrompt(withReplyPrefix(request.messages, request.continueFrom), this.contextSize, request.contextOverflow ?? 'error', (messages) => {
      const rendered = this.render(messages, mode, functions);
      return { rendered, tokens: rendered.tokens.length };
    });
    const maxTokens = Math.min(request.maxTokens ?? fitted.room, fitted.room);
    const grammar = await this.grammarFor(mode, limits);

    const lease = await this.pool.acquire({ sessionId: request.sessionId, user: request.user, signal });
    const queuedMs = performance.now() - started;
    let chat: InstanceType<NodeLlamaCpp['LlamaChat']> | undefined;
    let firstTokenAt: number | undefined;
    const markFirst = () => (firstTokenAt ??= performance.now());
    try {
      await this.prepareSequence(lease, request.sessionId);
      const promptTokens = fitted.rendered.tokens.length;
      const cachedTokens = Math.min(commonPrefixLength(lease.sequence.contextTokens, fitted.rendered.tokens), Math.max(promptTokens - 1, 0));
      const meterBefore = lease.sequence.tokenMeter.getState();
      const sampling = resolveSampling(request, this.config.sampling);
      const onText = (text: string) => {
        markFirst();
        if (text && mode.kind !== 'forced-tool') onDelta(text);
      };
      let response: Reply;
      const tools = this.loop === 'weft' && mode.kind === 'tools' && functions ? await this.weft.toolCalling(fitted.rendered, functions, markFirst) : undefined;
      const startText = this.loop === 'weft' ? await this.weft.startText(fitted.rendered.state) : undefined;
      if (this.loop === 'weft' && typeof tools !== 'string' && typeof startText !== 'string' && !weftLoopBlocker(fitted.rendered.state, this.chatWrapper, lease.sequence.needsCheckpoints, mode.kind === 'tools')) {
        const { customStopTriggers, ...rest } = sampling;
        const stopTriggers = [...fitted.rendered.state.stopGenerationTriggers, ...(grammar?.stopGenerationTriggers ?? [])];
        const stops = resolveStopTriggers(this.model, stopTriggers, customStopTriggers);
        const { lib } = this.backend;
        const reply = await runWeftLoop({ lib, model: this.model, sequence: lease.sequence, prompt: fitted.rendered.tokens, sampling: rest, stops, grammar, tools, startText, maxTokens, signal, onToken: markFirst, onText });
        response = { response: reply.text, functionCalls: reply.functionCalls, metadata: { stopReason: reply.stopReason, stopText: reply.stopText } };
      } else {
        chat = new this.backend.lib.LlamaChat({ contextSequence: lease.sequence, chatWrapper: this.chatWrapper });
        const common = { ...sampling, maxTokens, signal, onToken: markFirst, onTextChunk: onText };
        response = grammar
          ? await chat.generateResponse(fitted.rendered.history, { ...common, grammar })
          : await chat.generateResponse(fitted.rendered.history, { ...common, functions, onFunctionCallParamsChunk: markFirst });
      }
      const used = lease.sequence.tokenMeter.diff(meterBefore);
      const stopReason = response.metadata.stopReason as StopReason;
      const { text, toolCalls } = this.interpret(mode, response.response, response.functionCalls, stopReason, limits.maxStringChars);
      return {
        text,
        toolCalls,
        finishReason: finishReason(stopReason, toolCalls.length),
        ...requestedStop(request.stop, toolCalls.length > 0 ? undefined : response.metadata),
        usage: {
          promptTokens,
          completionTokens: used.usedOutputTokens,
          cachedTokens,
          // Measured by llama.cpp's token meter: the prompt's last token is evaluated with logits.
          evaluatedTokens: used.usedInputTokens + (used.usedOutputTokens > 0 ? 1 : 0),
        },
        timings: {
          timeToFirstTokenMs: firstTokenAt === undefined ? undefined : firstTokenAt - started,
          totalMs: performance.now() - started,
          queuedMs,
        },
        ...(fitted.droppedMessages > 0 ? { droppedMessages: fitted.droppedMessages } : {}),
      };
    } catch (error) {
      if (signal.aborted) throw signal.reason instanceof AppError ? signal.reason : error;
      if (error instanceof AppError) throw error;
      if (error instanceof Error && error.name === 'LlamaFunctionCallValidationError') {
        throw new AppError(ErrorCode.ToolArgumentsInvalid, `The model produced an invalid tool call: ${error.message}`, {}, true, {
          cause: error,
        });
      }
      throw new AppError(ErrorCode.GenerationFailed, `Generation failed: ${errorMessage(error)}`, {}, true, { cause: error });
    } finally {
      chat?.dispose({ disposeSequence: false });
      lease.release();
    }
  }

  /** One vector per input, from an embedding context beside the chat context; at most `maxQueue` + 1 requests at once. */
  embed(call: EmbedCall): Promise<Embedded> {
    this.embeddings ??= new EmbeddingRunner(this.model, Math.min(this.contextSize, EMBEDDING_CONTEXT_MAX), this.config.threads, this.config.maxQueue + 1);
    return this.embeddings.embed(call);
  }

  /** Continues raw text, or fills in the middle between `prompt` and `suffix` with the model's FIM tokens. */
  private async complete(
    request: GenerateRequest,
    { prompt, suffix }: NonNullable<GenerateRequest['completion']>,
    onDelta: (text: string) => void,
    signal: AbortSignal,
  ): Promise<GenerateResult> {
    const started = performance.now();
    if (suffix !== undefined) this.assertInfill();
    assertPromptChars(prompt.length + (suffix?.length ?? 0), this.contextSize);
    const promptTokens = this.model.tokenize(prompt, suffix === undefined).length + (suffix === undefined ? 0 : this.model.tokenize(suffix).length + 3);
    if (promptTokens >= this.contextSize) {
      throw new AppError(ErrorCode.ContextLengthExceeded, `The prompt takes ${promptTokens} tokens; the context holds ${this.contextSize}`, {
        promptTokens,
        contextSize: this.contextSize,
      });
    }
    const room = this.contextSize - promptTokens;
    const lease = await this.pool.acquire({ sessionId: request.sessionId, user: request.user, signal });
    const queuedMs = performance.now() - started;
    const completion = new this.backend.lib.LlamaCompletion({ contextSequence: lease.sequence });
    let firstTokenAt: number | undefined;
    try {
      await this.prepareSequence(lease, request.sessionId);
      const meterBefore = lease.sequence.tokenMeter.getState();
      const options = {
        ...resolveSampling(request, this.config.sampling),
        maxTokens: Math.min(request.maxTokens ?? room, room),
        signal,
        stopOnAbortSignal: false,
        ...(request.stop ? { customStopTriggers: request.stop } : {}),
        onTextChunk: (text: string) => {
          firstTokenAt ??= performance.now();
          if (text) onDelta(text);
        },
      };
      // Special tokens in a plain prompt are read as such, as llama-server does: editors that
      // write their own FIM template (Continue) send the markers as text.
      const response =
        suffix === undefined
          ? await completion.generateCompletionWithMeta(this.model.tokenize(prompt, true), options)
          : await completion.generateInfillCompletionWithMeta(prompt, suffix, options);
      const used = lease.sequence.tokenMeter.diff(meterBefore);
      const evaluatedTokens = used.usedInputTokens + (used.usedOutputTokens > 0 ? 1 : 0);
      return {
        text: response.response,
        toolCalls: [],
        finishReason: response.metadata.stopReason === 'maxTokens' ? 'length' : 'stop',
        usage: { promptTokens, completionTokens: used.usedOutputTokens, cachedTokens: Math.max(promptTokens - evaluatedTokens, 0), evaluatedTokens },
        timings: { timeToFirstTokenMs: firstTokenAt === undefined ? undefined : firstTokenAt - started, totalMs: performance.now() - started, queuedMs },
      };
    } catch (error) {
      if (signal.aborted) throw signal.reason instanceof AppError ? signal.reason : error;
      if (error instanceof AppError) throw error;
      throw new AppError(ErrorCode.GenerationFailed, `Completion failed: ${errorMessage(error)}`, {}, true, { cause: error });
    } finally {
      completion.dispose({ disposeSequence: false });
      lease.release();
    }
  }

  private assertInfill(): void {
    const { prefix, suffix, middle } = this.model.tokens.infill;
    const missing = Object.entries({ prefix, suffix, middle })
      .filter(([, token]) => token == null)
      .map(([name]) => name);
    if (missing.length > 0) {
      throw new AppError(
        ErrorCode.InvalidRequest,
        `Model "${this.config.id}" has no fill-in-the-middle tokens (missing: ${missing.join(', ')}); send no suffix, or use a code model that has them`,
        { model: this.config.id, missing },
      );
    }
  }

  /** The rendered prompt's tokens, tools and forced-call instruction included; no sequence is taken. */
  countTokens(request: GenerateRequest): number {
    assertPromptChars(promptChars(request.messages), this.contextSize);
    const mode = replyMode(request);
    const limits = grammarLimits(mode.kind === 'json' ? mode.schema : mode.kind === 'text' ? [] : mode.tools, this.contextSize);
    const functions = mode.kind === 'tools' ? toChatFunctions(mode.tools, limits) : undefined;
    return this.render(request.messages, mode, functions).tokens.length;
  }

  /**
   * Saves every session the sequences hold (where KV states are kept), so that the sessions'
   * next turns restore them after this model is unloaded to make room and loaded again.
   */
  async saveSessions(): Promise<void> {
    if (!this.states) return;
    for (const { sessionId, sequence } of this.pool.heldSessions()) {
      if (sequence.contextTokens.length === 0) continue;
      await this.states.save(sessionId, (path) => sequence.saveStateToFile(path)).then(
        () => this.onKvState('saved'),
        (err: unknown) => {
          this.onKvState('save_failed');
          this.log.warn({ err, sessionId }, 'could not save a session state before unloading the model');
        },
      );
    }
  }

  /** `keepStates`: the saved sessions stay on disk for the next load of the same model. */
  async dispose(keepStates = false): Promise<void> {
    if (!keepStates) await this.states?.clear();
    await this.embeddings?.dispose();
    await this.context.dispose();
    await this.model.dispose();
  }

  private render(messages: ChatMessage[], mode: ReplyMode, functions: ReturnType<typeof toChatFunctions>): Rendered {
    const sent = toChatHistory(messages);
    if (mode.kind === 'forced-tool') sent.push({ type: 'system', text: forcedCallInstruction(mode.tools) });
    const history = this.holdsMidSystem ? sent : foldMidConversationSystem(sent);
    // LlamaChat goes on with a last model turn (text after tool results) and otherwise appends an
    // empty one before it renders: the same render, so the chat wrapper's memo
    // (context-state-memo.ts) answers LlamaChat's from this one.
    const rendered: ChatHistory = history.at(-1)?.type === 'model' ? history : [...history, { type: 'model', response: [] }];
    const state = renderContextState(this.chatWrapper, { chatHistory: rendered, availableFunctions: functions });
    return { history, rendered, functions, tokens: state.contextText.tokenize(this.model.tokenizer), state };
  }

  /**
   * Saves the session this sequence is about to forget, clears another user's tokens, and
   * restores the caller's session if it was saved.
   */
  private async prepareSequence(lease: SequenceLease<LlamaContextSequence>, sessionId: string | undefined): Promise<void> {
    const { sequence } = lease;
    if (this.states && lease.evictedSessionId && sequence.contextTokens.length > 0) {
      const evicted = lease.evictedSessionId;
      await this.states.save(evicted, (path) => sequence.saveStateToFile(path)).then(
        () => this.onKvState('saved'),
        (err: unknown) => {
          this.onKvState('save_failed');
          this.log.warn({ err, sessionId: evicted }, 'could not save evicted session state');
        },
      );
    }
    // Another user's tokens are never a prefix to reuse unless the model says so (SequenceLease.foreign).
    if (lease.foreign && this.config.cacheSharing === 'user' && sequence.contextTokens.length > 0) await sequence.clearHistory();
    if (!this.states || lease.reused || !sessionId || !this.states.has(sessionId)) return;
    const restored = await this.states
      .restore(sessionId, (path) => sequence.loadStateFromFile(path, { acceptRisk: true }))
      .catch(async (err: unknown) => {
        this.onKvState('restore_failed');
        this.log.warn({ err, sessionId }, 'could not restore session state; recomputing');
        await sequence.clearHistory();
        return false;
      });
    if (!restored) return;
    this.onKvState('restored');
    this.log.debug({ sessionId, tokens: sequence.contextTokens.length }, 'restored session KV state');
  }

  private grammarFor(mode: ReplyMode, limits: Parameters<typeof forcedCallSchema>[1]): Promise<JsonGrammar> | undefined {
    let schema: JsonSchema;
    if (mode.kind === 'json') schema = mode.schema;
    else if (mode.kind === 'forced-tool') schema = forcedCallSchema(mode.tools, limits);
    else return undefined;
    const key = JSON.stringify(schema);
    let grammar = this.grammars.get(key);
    if (!grammar) {
      // Built off the main thread within INFERENCE_GRAMMAR_BUDGET_MS; a budget refusal is already an AppError.
      grammar = buildJsonSchemaGrammar(this.backend, schema, this.backend.grammarBudgetMs).catch((error: unknown) => {
        this.grammars.delete(key);
        if (error instanceof AppError) throw error;
        throw new AppError(ErrorCode.InvalidRequest, `The JSON Schema cannot be turned into a grammar: ${errorMessage(error)}`, {}, false, {
          cause: error,
        });
      });
      this.grammars.set(key, grammar);
      if (this.grammars.size > GRAMMAR_CACHE_SIZE) this.grammars.delete(this.grammars.keys().next().value as string);
    } else {
      // Refresh its place in the LRU order.
      this.grammars.delete(key);
      this.grammars.set(key, grammar);
    }
    return grammar;
  }

  private interpret(
    mode: ReplyMode,
    text: string,
    functionCalls: readonly { functionName: string; params: unknown }[] | undefined,
    stop: StopReason,
    stringCap: number,
  ): { text: string; toolCalls: ToolCall[] } {
    switch (mode.kind) {
      case 'text':
      case 'json':
        return { text, toolCalls: [] };
      case 'tools': {
        const raw: RawToolCall[] = (functionCalls ?? []).map((c) => ({ name: c.functionName, arguments: c.params }));
        return { text, toolCalls: toToolCalls(raw, mode.tools, stringCap) };
      }
      case 'forced-tool': {
        // A call cut off by maxTokens is no call, and its half-written JSON is no answer either.
        if (stop === 'maxTokens' || stop === 'abort') return { text: '', toolCalls: [] };
        const call = parseForcedCall(text);
        return { text: '', toolCalls: toToolCalls([call], mode.tools, stringCap) };
      }
    }
  }
}

function parseForcedCall(text: string): RawToolCall {
  try {
    const parsed = JSON.parse(text) as { name?: unknown; arguments?: unknown };
    return { name: typeof parsed.name === 'string' ? parsed.name : '', arguments: parsed.arguments };
  } catch (error) {
    throw new AppError(ErrorCode.ToolArgumentsInvalid, `The forced tool call is not valid JSON: ${errorMessage(error)}`, {}, true, {
      cause: error,
    });
  }
}

/**
 * The string of the request's `stop` the reply ended at: the loop's (weft) or LlamaChat's
 * `customStopTrigger`. A template's own stop strings are not the client's: not named.
 */
function requestedStop(stop: readonly string[] | undefined, metadata: Reply['metadata'] | undefined): { stopSequence?: string } {
  if (!stop?.length || !metadata) return {};
  const trigger = metadata.customStopTrigger;
  const met = metadata.stopText ?? (trigger?.every((part) => typeof part === 'string') ? trigger.join('') : undefined);
  return met !== undefined && stop.includes(met) ? { stopSequence: met } : {};
}

function finishReason(stop: StopReason, toolCalls: number): GenerateResult['finishReason'] {
  if (toolCalls > 0) return 'tool_calls';
  return stop === 'maxTokens' ? 'length' : 'stop';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
