import { createHash } from 'node:crypto';
import type { ChatMessage } from '@weft/contracts';

/**
 * The session id a stateless request (OpenAI, Anthropic) runs under: a hash of who asks, the
 * model and the conversation up to its first user message. Each request of a growing
 * conversation resends that opening unchanged, so it lands on the worker and the sequence that
 * hold the earlier tokens and only the new ones are evaluated. The tools are left out: agent
 * clients add tools mid-conversation, and a new key would move it off its cache. Two
 * conversations that open alike share a key; that costs only cache reuse (node-llama-cpp
 * compares tokens), never correctness.
 */
export function conversationKey(userId: string, model: string, messages: readonly ChatMessage[]): string {
  const firstUser = messages.findIndex((m) => m.role === 'user');
  const opening = firstUser < 0 ? messages : messages.slice(0, firstUser + 1);
  return hashedKey([userId, model, JSON.stringify(opening)]);
}

/**
 * The session id of a request that names its cache (`prompt_cache_key`: Codex sends its session
 * id): every request of that session lands on the worker and sequence holding its KV cache, even
 * once the client has compacted or rewritten the opening.
 */
export function promptCacheSessionKey(userId: string, model: string, promptCacheKey: string): string {
  return hashedKey([userId, model, 'prompt_cache_key', promptCacheKey]);
}

function hashedKey(parts: readonly string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return `compat:${hash.digest('base64url').slice(0, 32)}`;
}
