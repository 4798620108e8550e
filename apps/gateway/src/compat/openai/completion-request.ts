import type { GenerateRequest } from '@weft/contracts';
import { z } from 'zod';
import { badRequest } from '../compat-error';
import { checkedGenerateRequest } from '../request-fields';

/** A completion with no `max_tokens`: enough for a code completion, far from the context. */
export const DEFAULT_COMPLETION_TOKENS = 256;

/** OpenAI's (legacy) Completions request, as editors send it for code completion. */
export const completionRequestSchema = z.object({
  model: z.string().min(1),
  prompt: z.union([z.string(), z.array(z.string()).length(1)]),
  suffix: z.string().nullish(),
  max_tokens: z.number().int().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  seed: z.number().int().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  n: z.number().int().nullish(),
  best_of: z.number().int().nullish(),
  echo: z.boolean().nullish(),
  logprobs: z.number().int().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
});
export type CompletionRequest = z.infer<typeof completionRequestSchema>;

export function fromCompletionRequest(body: CompletionRequest): Omit<GenerateRequest, 'sessionId' | 'requestId'> {
  if (body.n != null && body.n !== 1) throw badRequest(`n=${body.n} is not supported: Weft returns exactly one choice`, 'n');
  if (body.best_of != null && body.best_of !== 1) throw badRequest('best_of is not supported', 'best_of');
  if (body.echo) throw badRequest('echo is not supported', 'echo');
  if (body.logprobs != null) throw badRequest('logprobs are not supported', 'logprobs');
  const prompt = typeof body.prompt === 'string' ? body.prompt : body.prompt[0]!;
  const suffix = body.suffix ?? undefined;
  const stop = body.stop == null ? undefined : typeof body.stop === 'string' ? [body.stop] : body.stop;
  return checkedGenerateRequest(
    {
      model: body.model,
      // The prompt as a message too: scripted models, routing and accounting read messages.
      messages: [{ role: 'user', content: suffix === undefined ? prompt : `${prompt}${suffix}` }],
      completion: { prompt, ...(suffix !== undefined ? { suffix } : {}) },
      maxTokens: body.max_tokens ?? DEFAULT_COMPLETION_TOKENS,
      ...(body.temperature != null ? { temperature: body.temperature } : {}),
      ...(body.top_p != null ? { topP: body.top_p } : {}),
      ...(body.seed != null ? { seed: body.seed } : {}),
      ...(stop?.length ? { stop } : {}),
    },
    { maxTokens: 'max_tokens', topP: 'top_p' },
  );
}
