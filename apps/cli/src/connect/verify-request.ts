import type { ClientApi } from './clients';
import { anthropicBase, type ConnectTarget, geminiBase, openAiBase } from './connect-target';

/** A model may have to load on a worker first: a cold 7B model takes tens of seconds. */
const VERIFY_TIMEOUT_MS = 180_000;
const PROMPT = 'Reply with OK.';

/** Sends one tiny request the way `api`'s clients do, with what was written; resolves when the gateway answered it. */
export type Verifier = (api: ClientApi, target: ConnectTarget) => Promise<void>;

export class VerifyFailedError extends Error {
  constructor(readonly status: number | undefined, message: string) {
    super(message);
    this.name = 'VerifyFailedError';
  }
}

function requestFor(api: ClientApi, t: ConnectTarget): { url: string; headers: Record<string, string>; body: unknown } {
  const bearer = { authorization: `Bearer ${t.key}` };
  switch (api) {
    case 'anthropic':
      return { url: `${anthropicBase(t)}/v1/messages`, headers: { 'x-api-key': t.key, 'anthropic-version': '2023-06-01' }, body: { model: t.model, max_tokens: 8, messages: [{ role: 'user', content: PROMPT }] } };
    case 'chat':
      return { url: `${openAiBase(t)}/chat/completions`, headers: bearer, body: { model: t.model, max_tokens: 8, messages: [{ role: 'user', content: PROMPT }] } };
    case 'responses':
      return { url: `${openAiBase(t)}/responses`, headers: bearer, body: { model: t.model, input: PROMPT, max_output_tokens: 16, store: false } };
    case 'gemini':
      return {
        url: `${geminiBase(t)}/v1beta/models/${encodeURIComponent(t.model)}:generateContent`,
        headers: { 'x-goog-api-key': t.key },
        body: { contents: [{ role: 'user', parts: [{ text: PROMPT }] }], generationConfig: { maxOutputTokens: 8 } },
      };
  }
}

/** The real request, over the network. */
export const verifyOverHttp: Verifier = async (api, target) => {
  const { url, headers, body } = requestFor(api, target);
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS) });
  } catch (error) {
    throw new VerifyFailedError(undefined, `${url}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const text = await response.text();
  if (!response.ok) throw new VerifyFailedError(response.status, `${url} answered ${response.status}: ${errorMessage(text)}`);
};

function errorMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') return parsed.error.message;
  } catch {
    // Not JSON (a proxy's page): its first line says enough.
  }
  return text.split('\n')[0]?.slice(0, 200) ?? '';
}
