import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode, type GenerateResult, type ToolCall } from '@weft/contracts';
import type { GenerateCall } from '../drivers/inference-driver';
import { toChatFunctions, toChatHistory } from './chat-history';
import type { ChatWrapper, LlamaContext, LlamaContextSequence, LlamaModel, NodeLlamaCpp } from './llama-runtime';
import { SequencePool } from './sequence-pool';

type ChatHistory = ReturnType<typeof toChatHistory>;
type ChatFunctions = ReturnType<typeof toChatFunctions>;

/** Covers the few tokens the generation adds after the rendered history (the reply's prefix). */
const PROMPT_MARGIN_TOKENS = 16;

type StopReason = 'eogToken' | 'stopGenerationTrigger' | 'functionCalls' | 'maxTokens' | 'abort' | 'customStopTrigger';

/** One GGUF in memory: its context, its chat wrapper (resolved once) and a pool of sequences. */
export class LoadedModel {
  private readonly pool: SequencePool<LlamaContextSequence>;

  constructor(
    private readonly lib: NodeLlamaCpp,
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    private readonly chatWrapper: ChatWrapper,
  ) {
    const sequences = Array.from({ length: context.totalSequences }, () => context.getSequence());
    this.pool = new SequencePool(sequences);
  }

  get contextSize(): number {
    return this.context.contextSize;
  }

  async generate({ request, onDelta, signal }: GenerateCall): Promise<GenerateResult> {
    const started = performance.now();
    const lease = await this.pool.acquire(request.sessionId, signal);
    const chat = new this.lib.LlamaChat({ contextSequence: lease.sequence, chatWrapper: this.chatWrapper });
    const meterBefore = lease.sequence.tokenMeter.getState();
    let firstTokenAt: number | undefined;
    const markFirst = () => (firstTokenAt ??= performance.now());
    try {
      const history = toChatHistory(request.messages);
      const functions = toChatFunctions(request.tools);
      const response = await chat.generateResponse(history, {
        functions,
        maxTokens: this.replyBudget(history, functions, request.maxTokens),
        temperature: request.temperature,
        seed: request.seed,
        signal,
        onToken: markFirst,
        onFunctionCallParamsChunk: markFirst,
        onTextChunk: (text) => {
          markFirst();
          if (text) onDelta(text);
        },
      });
      const used = lease.sequence.tokenMeter.diff(meterBefore);
      const toolCalls = (response.functionCalls ?? []).map(toToolCall);
      return {
        text: response.response,
        toolCalls,
        finishReason: finishReason(response.metadata.stopReason, toolCalls.length),
        usage: { promptTokens: used.usedInputTokens, completionTokens: used.usedOutputTokens },
        timings: {
          timeToFirstTokenMs: firstTokenAt === undefined ? undefined : firstTokenAt - started,
          totalMs: performance.now() - started,
        },
      };
    } catch (error) {
      if (signal.aborted || error instanceof AppError) throw error;
      throw new AppError(ErrorCode.GenerationFailed, `Generation failed: ${errorMessage(error)}`, {}, true, {
        cause: error,
      });
    } finally {
      chat.dispose({ disposeSequence: false });
      lease.release();
    }
  }

  /**
   * A reply may use what the prompt leaves of the context, never more: past that llama.cpp
   * would have to shift the context, which silently drops history. A prompt that does not fit
   * at all is a typed error with the numbers.
   */
  private replyBudget(history: ChatHistory, functions: ChatFunctions, requested: number | undefined): number {
    const { contextText } = this.chatWrapper.generateContextState({ chatHistory: history, availableFunctions: functions });
    const promptTokens = contextText.tokenize(this.model.tokenizer).length + PROMPT_MARGIN_TOKENS;
    const room = this.context.contextSize - promptTokens;
    if (room <= 0) {
      throw new AppError(
        ErrorCode.ContextLengthExceeded,
        `The prompt needs about ${promptTokens} tokens but the model's context holds ${this.context.contextSize}`,
        { promptTokens, contextSize: this.context.contextSize },
      );
    }
    return Math.min(requested ?? room, room);
  }

  async dispose(): Promise<void> {
    await this.context.dispose();
    await this.model.dispose();
  }
}

function toToolCall(call: { functionName: string; params: unknown }): ToolCall {
  const args = call.params !== null && typeof call.params === 'object' && !Array.isArray(call.params);
  return {
    id: `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    name: call.functionName,
    arguments: args ? (call.params as Record<string, unknown>) : {},
  };
}

function finishReason(stop: StopReason, toolCalls: number): GenerateResult['finishReason'] {
  if (toolCalls > 0) return 'tool_calls';
  return stop === 'maxTokens' ? 'length' : 'stop';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
