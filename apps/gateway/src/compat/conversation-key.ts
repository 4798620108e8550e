import { createHash } from 'node:crypto';
import type { ChatMessage, ToolDefinition } from '@weft/contracts';

/**
 * The session id a stateless request (OpenAI, Anthropic) runs under: a hash of who asks, the
 * model, the tools and the conversation up to its first user message. Each request of a growing
 * conversation resends that opening unchanged, so it lands on the worker and the sequence that
 * hold the earlier tokens and only the new ones are evaluated. Two conversations that open alike
 * share a key; that costs only cache reuse (node-llama-cpp compares tokens), never correctness.
 */
export function conversationKey(userId: string, model: string, messages: readonly ChatMessage[], tools?: readonly ToolDefinition[]): string {
  const firstUser = messages.findIndex((m) => m.role === 'user');
  const opening = firstUser < 0 ? messages : messages.slice(0, firstUser + 1);
  const hash = createHash('sha256');
  for (const part of [userId, model, JSON.stringify(tools ?? []), JSON.stringify(opening)]) hash.update(part).update('\0');
  return `compat:${hash.digest('base64url').slice(0, 32)}`;
}
