import { type ChatMessage, type GenerateRequest, generateRequestSchema } from '@weft/contracts';
import type { z } from 'zod';
import { badRequest } from './compat-error';
import { exceededLimit } from './request-limits';

/** The worker's ceiling for one reply (`GenerateRequest.maxTokens`); the context may cut it shorter. */
const MAX_REPLY_TOKENS = 32_768;

/**
 * Checks the translated request against the worker's contract and names the field at fault
 * in the client's own terms (`paramNames` maps Weft's field names to the API's).
 */
export function checkedGenerateRequest(request: GenerateRequest, paramNames: Partial<Record<keyof GenerateRequest, string>>): GenerateRequest {
  // Clients ask for their own models' ceilings (Claude Code: 32000 and more): cap, do not refuse.
  const capped = request.maxTokens !== undefined && request.maxTokens > MAX_REPLY_TOKENS ? { ...request, maxTokens: MAX_REPLY_TOKENS } : request;
  const parsed = generateRequestSchema.safeParse(capped);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path[0] as keyof GenerateRequest | undefined;
  const param = field === undefined ? undefined : (paramNames[field] ?? String(field));
  const rest = issue && issue.path.length > 1 ? `[${issue.path.slice(1).join('][')}]` : '';
  throw badRequest(`Invalid ${param ?? 'request'}${rest}: ${issue?.message ?? 'not accepted'}`, param);
}

/** Finds the name of the tool an earlier assistant message called with this id. */
export function toolNameFor(messages: readonly ChatMessage[], toolCallId: string): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role !== 'assistant') continue;
    const call = message.toolCalls?.find((c) => c.id === toolCallId);
    if (call) return call.name;
  }
  return undefined;
}

/** A tool call's arguments given as a JSON string (OpenAI) must be one JSON object. */
export function parseArguments(json: string, param: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = json.trim() === '' ? {} : JSON.parse(json);
  } catch {
    throw badRequest(`${param} is not valid JSON`, param);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest(`${param} must be a JSON object`, param);
  return value as Record<string, unknown>;
}

/** Parses a request body; a failure is a 400 naming the first bad field as the API spells it. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const param = issue ? formatPath(issue.path) : undefined;
  throw badRequest(`Invalid request: ${param ? `${param}: ` : ''}${issue?.message ?? 'not accepted'}`, param || undefined);
}

/** Refuses a body past the request limits (request-limits.ts) before any schema reads it: a 400 naming the field. */
export function assertWithinLimits(body: unknown, conversationField: 'messages' | 'input'): void {
  const exceeded = exceededLimit(body, conversationField);
  if (!exceeded) return;
  const param = formatPath(exceeded.path);
  throw badRequest(
    exceeded.what === 'items'
      ? `${param} has ${exceeded.count} items: at most ${exceeded.limit} are accepted in one request`
      : `${conversationField} hold more than ${exceeded.limit} content blocks (passed at ${param}): at most ${exceeded.limit} are accepted in one request`,
    param,
  );
}

/** Parses one part of a body (an item, a tool) already known by its place; a failure names the field under `param`. */
export function parseAt<S extends z.ZodType>(schema: S, value: unknown, param: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${param}.${formatPath(issue.path)}` : param;
  throw badRequest(`Invalid ${where}: ${issue?.message ?? 'not accepted'}`, where);
}

/** `['messages', 2, 'content']` → `messages[2].content`. */
function formatPath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${String(p)}`)).join('');
}
