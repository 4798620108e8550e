import type { ExecRequest, GenerateRequest } from '@weft/contracts';
import { isLongRun } from '../agent-core/long-run-classifier';

/** Tokens a chat template adds around each message (role markers, separators), at most. */
const TEMPLATE_TOKENS_PER_MESSAGE = 8;
/** Tokens a chat template adds once (a default system preamble, the reply's opening). */
const TEMPLATE_TOKENS = 32;
/** The longest reply a request may ask for (`generateRequestSchema.maxTokens`). */
const MAX_REPLY_TOKENS = 32_768;

/**
 * The most tokens a generation can count against the tokens-per-day quota: its prompt (every
 * UTF-8 byte of messages, tool calls and tool definitions as a token: no tokenizer makes more,
 * byte fallback being one token a byte; plus the template's own) and its reply (`maxTokens`, or
 * when a request names none, the model's context: a worker then generates until it is full).
 * Both together never exceed the context, which holds the prompt and the reply.
 */
export function tokenReservation(request: GenerateRequest, contextSize: number | undefined): number {
  let prompt = TEMPLATE_TOKENS + bytes(request.completion?.suffix ?? '');
  for (const message of request.messages) {
    prompt += TEMPLATE_TOKENS_PER_MESSAGE + bytes(message.content);
    if (message.role === 'assistant' && message.toolCalls) prompt += bytes(JSON.stringify(message.toolCalls));
  }
  if (request.tools) prompt += bytes(JSON.stringify(request.tools));
  const reply = request.maxTokens ?? contextSize ?? MAX_REPLY_TOKENS;
  return Math.min(prompt + reply, contextSize ?? Number.POSITIVE_INFINITY);
}

/** Tokens a tokenizer adds around one embedding input (BOS, EOS), at most. */
const SPECIAL_TOKENS_PER_INPUT = 4;

/**
 * The most tokens an embedding request can count against the tokens-per-day quota: each input's
 * UTF-8 bytes and special tokens, at most the model's context (a longer input is refused).
 */
export function embeddingReservation(input: readonly string[], contextSize: number | undefined): number {
  let tokens = 0;
  for (const text of input) tokens += Math.min(bytes(text) + SPECIAL_TOKENS_PER_INPUT, contextSize ?? Number.POSITIVE_INFINITY);
  return tokens;
}

/** The gateway's sandbox settings that decide how long a run may take. */
export interface SandboxTimeouts {
  /** SANDBOX_TIMEOUT_MS: how long the gateway waits for a short run. */
  shortRunMs: number;
  /** SANDBOX_LONG_RUN_THRESHOLD_MS */
  longRunThresholdMs: number;
  /** SANDBOX_LONG_RUN_TIMEOUT_MS */
  longRunMs: number;
}

/**
 * The longest a sandbox run can count against the sandbox-seconds quota: its timeout as the
 * routing to the sandbox gives it (a long run gets at least SANDBOX_LONG_RUN_TIMEOUT_MS; a short
 * one its own, or what the gateway waits for it).
 */
export function sandboxReservationMs(request: ExecRequest, timeouts: SandboxTimeouts): number {
  if (isLongRun(request, { thresholdMs: timeouts.longRunThresholdMs })) return Math.max(request.timeoutMs ?? 0, timeouts.longRunMs);
  return Math.min(request.timeoutMs ?? timeouts.shortRunMs, timeouts.shortRunMs);
}

function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
