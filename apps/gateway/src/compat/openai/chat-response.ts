import type { GenerateResult } from '@weft/contracts';

/** What every chunk and completion of one response shares. */
export interface CompletionIdentity {
  id: string;
  model: string;
  /** Unix seconds. */
  created: number;
}

type FinishReason = 'stop' | 'length' | 'tool_calls';

export function openAiUsage(usage: GenerateResult['usage']) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
  };
}

function toolCallsOf(result: GenerateResult) {
  return result.toolCalls.map((call) => ({
    id: call.id,
    type: 'function' as const,
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
}

/** The non-streamed reply (`object: chat.completion`). */
export function chatCompletion(identity: CompletionIdentity, result: GenerateResult) {
  const toolCalls = toolCallsOf(result);
  return {
    ...identity,
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: toolCalls.length > 0 && result.text === '' ? null : result.text,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: result.finishReason satisfies FinishReason,
      },
    ],
    usage: openAiUsage(result.usage),
  };
}

/** One `chat.completion.chunk` with a delta for the single choice. */
export function chatChunk(identity: CompletionIdentity, delta: Record<string, unknown>, finishReason: FinishReason | null = null) {
  return {
    ...identity,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

/** The chunks that close a stream: tool calls (whole, one per index), then the finish reason. */
export function closingChunks(identity: CompletionIdentity, result: GenerateResult) {
  const calls = toolCallsOf(result).map((call, index) => chatChunk(identity, { tool_calls: [{ index, ...call }] }));
  return [...calls, chatChunk(identity, {}, result.finishReason)];
}

/** The extra chunk of `stream_options.include_usage`: no choices, only the usage. */
export function usageChunk(identity: CompletionIdentity, result: GenerateResult) {
  return { ...identity, object: 'chat.completion.chunk', choices: [], usage: openAiUsage(result.usage) };
}

/** The Completions reply (`object: text_completion`), whole or as one streamed chunk. */
export function textCompletion(identity: CompletionIdentity, text: string, finishReason: FinishReason | null, usage?: GenerateResult['usage']) {
  return {
    ...identity,
    object: 'text_completion',
    choices: [{ index: 0, text, logprobs: null, finish_reason: finishReason }],
    ...(usage ? { usage: openAiUsage(usage) } : {}),
  };
}
