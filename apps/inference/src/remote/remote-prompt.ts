import { AppError, ErrorCode, type ChatMessage, type ToolDefinition } from '@weft/contracts';

/**
 * A conservative prompt size for an endpoint whose tokenizer is not at hand: 3 characters a
 * token (most tokenizers average 3.5-4 on English and code), plus a little per message.
 */
export function estimatePromptTokens(messages: readonly ChatMessage[], tools: readonly ToolDefinition[] | undefined): number {
  const chars =
    messages.reduce((sum, m) => sum + m.content.length + (m.role === 'assistant' ? JSON.stringify(m.toolCalls ?? []).length : 0), 0) +
    JSON.stringify(tools ?? []).length;
  return Math.ceil(chars / 3) + messages.length * 4;
}

/**
 * The real context length of a remote model is respected: a prompt that cannot fit with room for
 * a reply is refused with the numbers, before anything is sent; the reply is capped to the rest.
 */
export function replyBudget(modelId: string, contextSize: number, promptTokens: number, requested: number | undefined, cap?: number): number {
  const room = contextSize - promptTokens;
  if (room <= 0) {
    throw new AppError(
      ErrorCode.ContextLengthExceeded,
      `The prompt needs about ${promptTokens} tokens but model "${modelId}" holds ${contextSize}`,
      { promptTokens, contextSize, estimated: true },
    );
  }
  return Math.min(requested ?? room, room, cap ?? Number.POSITIVE_INFINITY);
}

/** Remote providers are served through their chat APIs only. */
export function rawCompletionRefused(modelId: string): AppError {
  return new AppError(ErrorCode.InvalidRequest, `Model "${modelId}" is a remote chat model: text completions and fill-in-the-middle need a local model`, {
    model: modelId,
  });
}
