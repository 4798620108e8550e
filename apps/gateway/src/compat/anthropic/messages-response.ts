import { randomBytes } from 'node:crypto';
import type { GenerateResult } from '@weft/contracts';

export interface MessageIdentity {
  id: string;
  model: string;
}

type StopReason = 'end_turn' | 'max_tokens' | 'tool_use' | 'stop_sequence';

export function stopReason(result: GenerateResult): StopReason {
  if (result.finishReason === 'tool_calls') return 'tool_use';
  if (result.finishReason === 'length') return 'max_tokens';
  return result.stopSequence !== undefined ? 'stop_sequence' : 'end_turn';
}

/** The `stop_sequences` entry that ended the reply, as Anthropic names it; null for any other end. */
export function stopSequence(result: GenerateResult): string | null {
  return result.finishReason === 'stop' ? (result.stopSequence ?? null) : null;
}

/** Anthropic counts cache reads apart: `input_tokens` are the ones evaluated anew. */
export function anthropicUsage(usage: GenerateResult['usage']) {
  const cached = usage.cachedTokens ?? 0;
  return {
    input_tokens: usage.promptTokens - cached,
    output_tokens: usage.completionTokens,
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: 0,
  };
}

/**
 * The reply's tool calls as `tool_use` blocks, with ids as Anthropic makes them (`toolu_…`): the
 * worker's ids (`call_0_0`) repeat from reply to reply, and clients may key tool results by id.
 */
export function toolUseBlocks(result: GenerateResult) {
  return result.toolCalls.map((call) => ({ type: 'tool_use' as const, id: toolUseId(), name: call.name, input: call.arguments }));
}

const toolUseId = () => `toolu_01${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;

/** The non-streamed reply (`type: message`). */
export function message(identity: MessageIdentity, result: GenerateResult) {
  const tools = toolUseBlocks(result);
  const text = result.text !== '' || tools.length === 0 ? [{ type: 'text' as const, text: result.text }] : [];
  return {
    ...identity,
    type: 'message',
    role: 'assistant',
    content: [...text, ...tools],
    stop_reason: stopReason(result),
    stop_sequence: stopSequence(result),
    usage: anthropicUsage(result.usage),
  };
}

/** The first event of a stream: the message, empty; its usage arrives with `message_delta`. */
export function messageStart(identity: MessageIdentity) {
  return {
    type: 'message_start',
    message: {
      ...identity,
      type: 'message',
      role: 'assistant',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    },
  };
}
