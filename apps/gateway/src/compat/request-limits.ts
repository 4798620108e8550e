/**
 * How much one compatible-API request may hold. Far above what agent clients send on long
 * sessions (Claude Code and Codex: hundreds to a few thousand messages or input items), far below
 * what stalls the gateway: validating and translating 450,000 messages held the event loop for
 * seconds, every other request and `/healthz` included. Checked on the parsed body before any
 * schema runs, so a refusal costs a loop over at most these many entries.
 */
export const MAX_LIST_ITEMS = 10_000;
/** Content parts, blocks, tool calls and nested tool-result blocks, summed over the messages or input items. */
export const MAX_CONTENT_BLOCKS = 50_000;

/** A limit the body exceeds, with the field at fault as a path (`['messages']`, `['messages', 12, 'content']`). */
export interface LimitExceeded {
  path: Array<string | number>;
  limit: number;
  /** How many there were, or, for blocks, how many had been counted when the limit was passed. */
  count: number;
  what: 'items' | 'content blocks';
}

/**
 * The first limit the parsed body exceeds: any top-level list (`messages`, `input`, `tools`,
 * `stop`…) longer than MAX_LIST_ITEMS, then the blocks inside `conversationField`'s entries.
 */
export function exceededLimit(body: unknown, conversationField: 'messages' | 'input'): LimitExceeded | undefined {
  if (!isRecord(body)) return undefined;
  for (const [field, value] of Object.entries(body)) {
    if (Array.isArray(value) && value.length > MAX_LIST_ITEMS) return { path: [field], limit: MAX_LIST_ITEMS, count: value.length, what: 'items' };
  }
  const entries = body[conversationField];
  if (!Array.isArray(entries)) return undefined;
  let blocks = 0;
  for (let i = 0; i < entries.length; i++) {
    const entry: unknown = entries[i];
    if (!isRecord(entry)) continue;
    for (const field of ['content', 'output', 'tool_calls'] as const) {
      const list = entry[field];
      if (!Array.isArray(list)) continue;
      blocks += list.length;
      // Anthropic's tool_result blocks nest their own content blocks: bounded by the count so far.
      for (let j = 0; j < list.length && blocks <= MAX_CONTENT_BLOCKS; j++) {
        const nested: unknown = isRecord(list[j]) ? (list[j] as Record<string, unknown>).content : undefined;
        if (Array.isArray(nested)) blocks += nested.length;
      }
      if (blocks > MAX_CONTENT_BLOCKS) return { path: [conversationField, i, field], limit: MAX_CONTENT_BLOCKS, count: blocks, what: 'content blocks' };
    }
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
