import {
  AppError,
  ErrorCode,
  type ChatMessage,
  type GenerateResult,
  type ToolCall,
} from '@weft/contracts';
import type { Script } from './script.schema';

/**
 * Stateless: the step is how many assistant replies the conversation already holds. Consecutive
 * assistant messages are one reply: clients split a reply's text and its tool calls into
 * messages (Codex in chat mode) or items (the Responses API) of their own. System messages
 * a client inserts between them (Claude Code's reminders) do not end the reply.
 */
export function scriptStep(messages: readonly ChatMessage[]): number {
  let replies = 0;
  let inReply = false;
  for (const message of messages) {
    if (message.role === 'system') continue;
    if (message.role === 'assistant' && !inReply) replies += 1;
    inReply = message.role === 'assistant';
  }
  return replies;
}

/** Splits text into word-sized deltas (each keeps its trailing whitespace). */
export function chunkText(text: string): string[] {
  return text.match(/\s*\S+\s*|\s+/g) ?? [];
}

/**
 * The deltas left after `continueFrom`, the part of the reply a lost worker already streamed: a
 * script is deterministic, so a moved generation goes on as an unbroken one would have.
 */
export function continuedChunks(chunks: readonly string[], continueFrom: string | undefined): string[] {
  if (continueFrom === undefined) return [...chunks];
  let skip = continueFrom.length;
  const rest: string[] = [];
  for (const chunk of chunks) {
    if (skip < chunk.length) rest.push(chunk.slice(skip));
    skip = Math.max(skip - chunk.length, 0);
  }
  return rest;
}

export interface PlannedTurn {
  chunks: string[];
  toolCalls: ToolCall[];
  finishReason: GenerateResult['finishReason'];
  /** The stop string that cut the turn's text, as a model's reply ends at one. */
  stopSequence?: string;
  /** The turn's pause before each delta. */
  delayMs: number;
}

/** What the script answers at this point of the conversation, cut to `maxTokens` chunks. */
export function planTurn(modelId: string, script: Script, messages: readonly ChatMessage[], maxTokens?: number, stop: readonly string[] = []): PlannedTurn {
  const step = scriptStep(messages);
  const turns = turnsFor(script, messages);
  const turn = turns[step];
  if (!turn) {
    throw new AppError(
      ErrorCode.ScriptExhausted,
      `Script "${modelId}" has ${turns.length} turns here; the conversation asks for turn ${step + 1}`,
      { model: modelId, step, turns: turns.length },
    );
  }
  const stopped = firstStop(turn.text ?? '', stop);
  const chunks = chunkText(stopped ? stopped.before : (turn.text ?? ''));
  const delayMs = turn.delayMs ?? 0;
  if (maxTokens !== undefined && chunks.length > maxTokens) {
    return { chunks: chunks.slice(0, maxTokens), toolCalls: [], finishReason: 'length', delayMs };
  }
  if (stopped) return { chunks, toolCalls: [], finishReason: 'stop', stopSequence: stopped.sequence, delayMs };
  const toolCalls = (turn.toolCalls ?? []).map((call, i) => ({
    id: `call_${step}_${i}`,
    name: call.name,
    arguments: call.arguments,
  }));
  return { chunks, toolCalls, finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop', delayMs };
}

/** The branch whose `when` matches the conversation's first user message, else the main turns. */
function turnsFor(script: Script, messages: readonly ChatMessage[]): Script['turns'] {
  const first = messages.find((m) => m.role === 'user')?.content ?? '';
  return script.branches?.find((branch) => new RegExp(branch.when).test(first))?.turns ?? script.turns;
}

/** A rough token count (4 characters a token) for usage figures of a model that has no tokenizer. */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  const chars = messages.reduce((sum, m) => sum + m.content.length, 0);
  return Math.ceil(chars / 4);
}

/** The earliest of `stop` in `text`, and the text before it. */
function firstStop(text: string, stop: readonly string[]): { before: string; sequence: string } | undefined {
  let first: { at: number; sequence: string } | undefined;
  for (const sequence of stop) {
    const at = sequence ? text.indexOf(sequence) : -1;
    if (at >= 0 && (!first || at < first.at)) first = { at, sequence };
  }
  return first && { before: text.slice(0, first.at), sequence: first.sequence };
}
