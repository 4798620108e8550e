import {
  MAX_LOGIT_BIAS_ENTRIES,
  schemaExcessAt,
  stopExcess,
  toolsExcess,
  type RequestCostExcess,
  type RequestCostLimits,
  type ToolCostEntry,
} from '@weft/contracts';

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

/** The compatible APIs whose bodies carry schemas, stop strings or a logit bias. */
export type CostedApi = 'chat' | 'completions' | 'responses' | 'messages';

/**
 * The first schema, tool list, stop list or logit bias of a parsed body past its cost limit
 * (libs/contracts' request-cost.ts), with the path in the API's own field names. Runs before any
 * schema reads the body, so a refusal costs a walk over at most the limits' worth of it.
 */
export function exceededCost(body: unknown, api: CostedApi, limits: RequestCostLimits): RequestCostExcess | undefined {
  if (!isRecord(body)) return undefined;
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const toolEntries = tools.map((tool: unknown, i) => toolEntryAt(tool, i, api));
  const format = replyFormatAt(body, api);
  return (
    (format && schemaExcessAt(format[1], format[0], limits)) ??
    (tools.length > 0 ? toolsExcess(['tools'], toolEntries, limits) : undefined) ??
    (api === 'messages' ? stopExcess(['stop_sequences'], body.stop_sequences) : api === 'responses' ? undefined : stopExcess(['stop'], body.stop)) ??
    logitBiasExcess(body)
  );
}

type Located = readonly [Array<string | number>, unknown];

function toolEntryAt(tool: unknown, i: number, api: CostedApi): ToolCostEntry {
  if (!isRecord(tool)) return { path: ['tools', i], schema: undefined };
  if (api === 'messages') return { path: ['tools', i, 'input_schema'], schema: tool.input_schema, description: tool.description };
  if (api === 'responses') return { path: ['tools', i, 'parameters'], schema: tool.parameters, description: tool.description };
  const fn = isRecord(tool.function) ? tool.function : {};
  return { path: ['tools', i, 'function', 'parameters'], schema: fn.parameters, description: fn.description };
}

function replyFormatAt(body: Record<string, unknown>, api: CostedApi): Located | undefined {
  const at = (holder: unknown, key: string, path: Array<string | number>): Located | undefined =>
    isRecord(holder) && holder[key] !== undefined ? [path, holder[key]] : undefined;
  switch (api) {
    case 'chat': {
      const format = body.response_format;
      return isRecord(format) ? at(format.json_schema, 'schema', ['response_format', 'json_schema', 'schema']) : undefined;
    }
    case 'responses': {
      const text = body.text;
      return isRecord(text) ? at(text.format, 'schema', ['text', 'format', 'schema']) : undefined;
    }
    case 'messages': {
      const config = body.output_config;
      return isRecord(config) ? at(config.format, 'schema', ['output_config', 'format', 'schema']) : undefined;
    }
    case 'completions':
      return undefined;
  }
}

/** Weft reads no `logit_bias` (it is accepted and ignored), but a huge one still costs parsing: bounded. */
function logitBiasExcess(body: Record<string, unknown>): RequestCostExcess | undefined {
  const bias = body.logit_bias;
  if (!isRecord(bias)) return undefined;
  const entries = Object.keys(bias).length;
  return entries > MAX_LOGIT_BIAS_ENTRIES ? { path: ['logit_bias'], what: 'entries', count: entries, limit: MAX_LOGIT_BIAS_ENTRIES } : undefined;
}
