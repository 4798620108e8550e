import { randomUUID } from 'node:crypto';
import type { ChatMessage, GenerateResult, SessionEvent, ToolDefinition } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { abortable } from './abortable';
import {
  CHARS_PER_TOKEN,
  baseEstimate,
  chooseCut,
  currentTurnStart,
  estimateTokens,
  modelView,
  promptEstimate,
  systemWithSummary,
  transcriptLines,
} from './context-window';
import type { ContextState, InferencePort, ThreadRef, TurnStore } from '../agent-core/ports';
import { inferenceSessionKey } from './thread';
import { RUNTIME_NOTE_PREFIX } from '../agent-core/runtime-note';

/** The longest summary asked for, in tokens; a quarter of a small context at most. */
export const SUMMARY_MAX_TOKENS = 1024;
/** The least room a reply is left before the older turns are summarised whatever it takes. */
const MIN_REPLY_TOKENS = 512;
/** The least a summary gets when the context is nearly full without it. */
const MIN_FALLBACK_SUMMARY_TOKENS = 64;
/** Room for the summariser's own instructions, in tokens. */
const SUMMARISER_OVERHEAD_TOKENS = 256;
/** A chunk of transcript is never cut below this, however small the context. */
const MIN_CHUNK_CHARS = 2000;

const SUMMARISER_SYSTEM = 'You write concise, factual summaries of coding sessions, for the agent that continues them.';
const SUMMARISE_NOTE = [
  `${RUNTIME_NOTE_PREFIX} Summarise the conversation so far for your own later use: what the user asked for,`,
  'what was done (files read and changed, commands run and what they showed), decisions made, and what is',
  'still open. Keep paths, names and error codes exact. Do not call any tools.',
].join(' ');

export interface PromptRequest {
  thread: ThreadRef;
  turnId: string;
  model: string;
  /** The model's context length; no compaction when unknown. */
  contextSize: number | undefined;
  systemPrompt: string;
  tools: readonly ToolDefinition[] | undefined;
  signal: AbortSignal;
  emit(event: SessionEvent): Promise<void>;
  /** Told the usage of each summary generation, which counts towards the turn. */
  onUsage(usage: GenerateResult['usage']): void;
  /** Whose turn it is: summaries count towards their usage and fair share too. */
  userId: string;
  log: Logger;
}

export interface Prompt {
  messages: ChatMessage[];
  /** Stored messages the prompt covers, for `measure`. */
  historyLength: number;
  state: ContextState | undefined;
}

/**
 * Keeps a session's prompt inside the model's context: the system prompt and the recent turns go
 * as they are; when they no longer fit (with room left for the reply), the older messages are
 * replaced in the prompt by a summary the model writes in one generation without tools. The
 * stored messages stay as the user saw them; the summary and where it ends are kept beside them,
 * and `context.compacted` says it happened.
 */
export class ContextManager {
  constructor(
    private readonly store: TurnStore,
    private readonly inference: InferencePort,
    /** Tokens left free for the model's reply. */
    private readonly replyReserve: number,
  ) {}

  async prompt(request: PromptRequest, history: ChatMessage[]): Promise<Prompt> {
    let state = await this.store.contextState(request.thread);
    const messages = modelView(request.systemPrompt, history, state);
    const contextSize = request.contextSize;
    if (contextSize === undefined) return { messages, historyLength: history.length, state };
    // A count larger than the context cannot be a prompt the model took; estimate instead.
    if (state?.measured && state.measured.promptTokens > contextSize) state = { ...state, measured: undefined };
    const budget = contextSize - this.replyReserve;
    const before = promptEstimate(messages, history, state, request.tools);
    if (before <= budget) return { messages, historyLength: history.length, state };

    const from = state?.summarisedMessages ?? 0;
    const summaryTokens = Math.min(SUMMARY_MAX_TOKENS, Math.floor(contextSize / 4));
    const base = baseEstimate(request.systemPrompt, history, state, request.tools);
    // The reply's reserve gives way first: a model whose system prompt and tools fill most of its
    // context still keeps its current turn, with the older ones summarised.
    let cut = chooseCut(history, from, budget - base - summaryTokens);
    let summaryBudget = summaryTokens;
    if (cut === undefined) {
      // No cut leaves the reply its full reserve. While the prompt still fits the context with a
      // short reply, it goes as it is; past that, or once the worker counted the last prompt over
      // the budget (its own count: estimates of model text can be far short), the older turns are
      // summarised however small the summary has to be.
      const measuredOver = (state?.measured?.promptTokens ?? 0) > budget;
      if (before <= contextSize - MIN_REPLY_TOKENS && !measuredOver) {
        request.log.warn({ estimate: before, contextSize }, 'the prompt leaves the reply less than its reserve');
        return { messages, historyLength: history.length, state };
      }
      cut = currentTurnStart(history, from);
      // What is left beside the fixed part and the current turn goes a third to the summary (read
      // back, a summary can count more tokens than it was generated with) and the rest to the reply.
      const left = contextSize - base - estimateTokens(history.slice(cut ?? history.length));
      summaryBudget = Math.max(MIN_FALLBACK_SUMMARY_TOKENS, Math.min(summaryTokens, Math.floor(left / 3)));
    }
    if (cut === undefined) {
      request.log.warn({ estimate: before, contextSize }, 'the prompt may not fit the context and only the current turn is left');
      return { messages, historyLength: history.length, state };
    }
    const summary = await this.summarise(request, state?.summary ?? null, history.slice(from, cut), contextSize, summaryBudget);
    if (summary === '') {
      request.log.warn({ estimate: before, contextSize }, 'the model wrote an empty summary; the context was not compacted');
      return { messages, historyLength: history.length, state };
    }
    state = { summarisedMessages: cut, summary };
    await this.store.saveContextState(request.thread, state);
    const compacted = modelView(request.systemPrompt, history, state);
    const after = base + estimateTokens(compacted.slice(1)) + Math.ceil(systemWithSummary('', summary).length / CHARS_PER_TOKEN);
    request.log.info({ before, after, contextSize, summarisedMessages: cut }, 'context compacted');
    await request.emit({
      type: 'context.compacted',
      turnId: request.turnId,
      contextSize,
      tokensBefore: before,
      tokensAfter: after,
      summarisedMessages: cut,
      keptMessages: history.length - cut,
    });
    return { messages: compacted, historyLength: history.length, state };
  }

  /** Keeps the worker's count of the prompt just sent, so the next estimate starts from it. */
  async measure(thread: ThreadRef, prompt: Prompt, promptTokens: number): Promise<void> {
    const state = prompt.state ?? { summarisedMessages: 0, summary: null };
    await this.store.saveContextState(thread, { ...state, measured: { messages: prompt.historyLength, promptTokens } });
  }

  /** One generation per chunk of transcript that fits the context, each folding into the summary so far. */
  private async summarise(
    request: PromptRequest,
    previous: string | null,
    messages: ChatMessage[],
    contextSize: number,
    summaryTokens: number,
  ): Promise<string> {
    const roomChars = (contextSize - summaryTokens - SUMMARISER_OVERHEAD_TOKENS) * CHARS_PER_TOKEN;
    let summary = previous;
    let pending = transcriptLines(messages, Math.max(MIN_CHUNK_CHARS, Math.floor(roomChars / 2)));
    while (pending.length > 0) {
      const room = Math.max(MIN_CHUNK_CHARS, roomChars - (summary?.length ?? 0));
      let size = 0;
      let count = 0;
      while (count < pending.length && (count === 0 || size + (pending[count]?.length ?? 0) <= room)) {
        size += pending[count]?.length ?? 0;
        count++;
      }
      summary = await this.generateSummary(request, summary, pending.slice(0, count).join('\n\n'), summaryTokens);
      pending = pending.slice(count);
    }
    return summary?.trim() ?? '';
  }

  private async generateSummary(request: PromptRequest, previous: string | null, transcript: string, maxTokens: number): Promise<string> {
    const earlier = previous ? `Summary of what came before:\n\n${previous}\n\n` : '';
    const stream = this.inference.generate(
      {
        model: request.model,
        messages: [
          { role: 'system', content: SUMMARISER_SYSTEM },
          { role: 'user', content: `${earlier}Conversation:\n\n${transcript}\n\n${SUMMARISE_NOTE}` },
        ],
        sessionId: inferenceSessionKey(request.thread),
        maxTokens,
        requestId: randomUUID(),
        user: { id: request.userId },
      },
      request.signal,
    );
    let text = '';
    for await (const chunk of abortable(stream, request.signal)) {
      if (chunk.type === 'delta') {
        text += chunk.text;
      } else if (chunk.type === 'done') {
        request.onUsage(chunk.result.usage);
        text = chunk.result.text || text;
      }
    }
    return text;
  }
}
