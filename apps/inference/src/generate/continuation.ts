import { AppError, ErrorCode, type ChatMessage, type GenerateRequest, type GenerateResult } from '@weft/contracts';

/**
 * A request that continues a reply a lost worker had begun (`continueFrom`): refused where the
 * reply's constraint cannot pick up mid-way (a JSON Schema's grammar restarts at its root).
 */
export function assertContinuable(request: GenerateRequest): void {
  if (request.continueFrom === undefined) return;
  if (request.jsonSchema) {
    throw new AppError(ErrorCode.InvalidRequest, 'A reply in a JSON schema cannot be continued from a prefix', { field: 'continueFrom' });
  }
  if (request.countOnly) throw new AppError(ErrorCode.InvalidRequest, 'A token count has no reply to continue', { field: 'continueFrom' });
}

/** The conversation with the reply so far as its last, open assistant turn: the model goes on from it. */
export function withReplyPrefix(messages: readonly ChatMessage[], continueFrom: string | undefined): ChatMessage[] {
  return continueFrom === undefined ? [...messages] : [...messages, { role: 'assistant', content: continueFrom }];
}

/**
 * The result of a continued reply as one worker would have reported the whole of it: its text
 * starts with the prefix, and the prefix's tokens count as completion tokens, not as prompt
 * tokens, so a generation that moved is billed what the same generation would have been.
 */
export function asWholeReply(result: GenerateResult, continueFrom: string | undefined, prefixTokens: number): GenerateResult {
  if (continueFrom === undefined) return result;
  const promptTokens = Math.max(result.usage.promptTokens - prefixTokens, 0);
  return {
    ...result,
    text: continueFrom + result.text,
    usage: {
      ...result.usage,
      promptTokens,
      completionTokens: result.usage.completionTokens + prefixTokens,
      ...(result.usage.cachedTokens === undefined ? {} : { cachedTokens: Math.min(result.usage.cachedTokens, promptTokens) }),
    },
  };
}
