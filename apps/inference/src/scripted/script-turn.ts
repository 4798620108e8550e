import {
  AppError,
  ErrorCode,
  type ChatMessage,
  type GenerateResult,
  type ToolCall,
} from '@weft/contracts';
import type { Script } from './script.schema';

/** Stateless: the step is how many assistant messages the conversation already holds. */
export function scriptStep(messages: readonly ChatMessage[]): number {
  return messages.filter((m) => m.role === 'assistant').length;
}

/** Splits text into word-sized deltas (each keeps its trailing whitespace). */
export function chunkText(text: string): string[] {
  return text.match(/\s*\S+\s*|\s+/g) ?? [];
}

export interface PlannedTurn {
  chunks: string[];
  toolCalls: ToolCall[];
  finishReason: GenerateResult['finishReason'];
}

/** What the script answers at this point of the conversation, cut to `maxTokens` chunks. */
export function planTurn(modelId: string, script: Script, messages: readonly ChatMessage[], maxTokens?: number): PlannedTurn {
  const step = scriptStep(messages);
  const turn = script.turns[step];
  if (!turn) {
    throw new AppError(
      ErrorCode.ScriptExhausted,
      `Script "${modelId}" has ${script.turns.length} turns; the conversation asks for turn ${step + 1}`,
      { model: modelId, step, turns: script.turns.length },
    );
  }
  const chunks = chunkText(turn.text ?? '');
  if (maxTokens !== undefined && chunks.length > maxTokens) {
    return { chunks: chunks.slice(0, maxTokens), toolCalls: [], finishReason: 'length' };
  }
  const toolCalls = (turn.toolCalls ?? []).map((call, i) => ({
    id: `call_${step}_${i}`,
    name: call.name,
    arguments: call.arguments,
  }));
  return { chunks, toolCalls, finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop' };
}

/** A rough token count (4 characters a token) for usage figures of a model that has no tokenizer. */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  const chars = messages.reduce((sum, m) => sum + m.content.length, 0);
  return Math.ceil(chars / 4);
}
