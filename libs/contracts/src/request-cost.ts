/**
 * How much work one generate request may ask of a worker whose main thread serves every user.
 * A JSON Schema (a reply format, a tool's parameters) becomes a grammar on that thread: its cost
 * grows with the properties (about 15 µs each) and superlinearly with the alternatives of one
 * `enum` or `oneOf` (40,000 enum values took 7 s). The defaults keep a schema at the limits
 * under about 0.1 s of compile; the gateway and the worker read the same settings.
 */
export interface RequestCostLimits {
  /** UTF-8 bytes of one schema's JSON text (REQUEST_SCHEMA_MAX_BYTES). */
  schemaMaxBytes: number;
  /** Nesting of objects and arrays in one schema (REQUEST_SCHEMA_MAX_DEPTH). */
  schemaMaxDepth: number;
  /** Names under every `properties` of one schema, summed (REQUEST_SCHEMA_MAX_PROPERTIES). */
  schemaMaxProperties: number;
  /** `enum` values and `oneOf`/`anyOf`/`allOf` branches of one schema, summed (REQUEST_SCHEMA_MAX_ALTERNATIVES). */
  schemaMaxAlternatives: number;
  /** Tools in one request (REQUEST_MAX_TOOLS). */
  maxTools: number;
  /** UTF-8 bytes of all the tools' parameter schemas and descriptions together (REQUEST_TOOLS_MAX_BYTES). */
  toolsMaxBytes: number;
  /** Properties of all the tools' parameter schemas together (REQUEST_TOOLS_MAX_PROPERTIES). */
  toolsMaxProperties: number;
}

export const DEFAULT_REQUEST_COST_LIMITS: Readonly<RequestCostLimits> = {
  schemaMaxBytes: 128 * 1024,
  schemaMaxDepth: 64,
  schemaMaxProperties: 2000,
  schemaMaxAlternatives: 1000,
  maxTools: 128,
  toolsMaxBytes: 512 * 1024,
  toolsMaxProperties: 5000,
};

/** Stop strings one request may give, and their length: each is matched against every token's text. */
export const MAX_STOP_STRINGS = 16;
export const MAX_STOP_CHARS = 64;
/** Entries of a `logit_bias` map (accepted, not read: bounded because parsing it still costs). */
export const MAX_LOGIT_BIAS_ENTRIES = 300;

export type SchemaMeasure = 'bytes' | 'depth' | 'properties' | 'alternatives';

/** The first measure of a schema past its limit; `count` is what had been counted when it was passed. */
export interface SchemaExcess {
  measure: SchemaMeasure;
  count: number;
  limit: number;
}

export interface SchemaCaps {
  bytes: number;
  depth: number;
  properties: number;
  alternatives: number;
}

export interface SchemaSize {
  bytes: number;
  properties: number;
}

export function schemaCaps(limits: RequestCostLimits): SchemaCaps {
  return { bytes: limits.schemaMaxBytes, depth: limits.schemaMaxDepth, properties: limits.schemaMaxProperties, alternatives: limits.schemaMaxAlternatives };
}

const BRANCH_KEYS = new Set(['oneOf', 'anyOf', 'allOf']);

/**
 * Measures a parsed JSON Schema, stopping at the first limit passed, so that refusing a huge one
 * costs a walk over at most the limits' worth of it. Iterative: a deep schema cannot overflow the stack.
 */
export function measureSchema(schema: unknown, caps: SchemaCaps): SchemaExcess | SchemaSize {
  let bytes = 0;
  let properties = 0;
  let alternatives = 0;
  const stack: Array<{ value: unknown; depth: number; key: string | undefined }> = [{ value: schema, depth: 0, key: undefined }];
  while (stack.length > 0) {
    const { value, depth, key } = stack.pop()!;
    if (typeof value === 'string') bytes += utf8Bytes(value) + 2;
    else if (value === null || typeof value !== 'object') bytes += String(value).length;
    else {
      if (depth + 1 > caps.depth) return { measure: 'depth', count: depth + 1, limit: caps.depth };
      // Keys, not entries: a 400,000-property object is refused without building 400,000 pairs.
      const list: readonly unknown[] | undefined = Array.isArray(value) ? value : undefined;
      const names = list ? undefined : Object.keys(value);
      const size = list ? list.length : names!.length;
      bytes += 2 + Math.max(size - 1, 0);
      if (names && key === 'properties') properties += size;
      if (list && key !== undefined && (key === 'enum' || BRANCH_KEYS.has(key))) alternatives += size;
      if (properties > caps.properties) return { measure: 'properties', count: properties, limit: caps.properties };
      if (alternatives > caps.alternatives) return { measure: 'alternatives', count: alternatives, limit: caps.alternatives };
      for (let i = 0; i < size; i++) {
        const name = names?.[i];
        if (name !== undefined) bytes += utf8Bytes(name) + 3;
        const child: unknown = list ? list[i] : (value as Record<string, unknown>)[name!];
        // Names inside `properties` are the schema's own words: a property called `enum` is no keyword.
        stack.push({ value: child, depth: depth + 1, key: key === 'properties' && names ? undefined : name });
        if (bytes > caps.bytes) return { measure: 'bytes', count: bytes, limit: caps.bytes };
      }
    }
    if (bytes > caps.bytes) return { measure: 'bytes', count: bytes, limit: caps.bytes };
  }
  return { bytes, properties };
}

export function isSchemaExcess(measured: SchemaExcess | SchemaSize): measured is SchemaExcess {
  return 'measure' in measured;
}

/** A field of a request past a cost limit, with where it is and the setting that raises it. */
export interface RequestCostExcess {
  /** The field as a path in Weft's generate request (`['tools', 3, 'parameters']`) or the API's body. */
  path: Array<string | number>;
  what: SchemaMeasure | 'tools' | 'stop strings' | 'characters' | 'entries';
  count: number;
  limit: number;
  /** The environment variable that raises the limit, where one does. */
  setting?: string;
}

const SCHEMA_SETTINGS: Record<SchemaMeasure, string> = {
  bytes: 'REQUEST_SCHEMA_MAX_BYTES',
  depth: 'REQUEST_SCHEMA_MAX_DEPTH',
  properties: 'REQUEST_SCHEMA_MAX_PROPERTIES',
  alternatives: 'REQUEST_SCHEMA_MAX_ALTERNATIVES',
};

/** One schema at `path` against the per-schema limits. */
export function schemaExcessAt(schema: unknown, path: Array<string | number>, limits: RequestCostLimits): RequestCostExcess | undefined {
  const measured = measureSchema(schema, schemaCaps(limits));
  if (!isSchemaExcess(measured)) return undefined;
  return { path, what: measured.measure, count: measured.count, limit: measured.limit, setting: SCHEMA_SETTINGS[measured.measure] };
}

/** One tool of a request: its parameter schema where it has one, at `path`, and its description. */
export interface ToolCostEntry {
  path: Array<string | number>;
  schema: unknown;
  description?: unknown;
}

/**
 * A request's tools: their number, each schema against the per-schema limits, and all the
 * schemas and descriptions together (the descriptions go into the prompt) against the totals;
 * `toolsPath` names the list.
 */
export function toolsExcess(toolsPath: Array<string | number>, tools: readonly ToolCostEntry[], limits: RequestCostLimits): RequestCostExcess | undefined {
  if (tools.length > limits.maxTools) return { path: toolsPath, what: 'tools', count: tools.length, limit: limits.maxTools, setting: 'REQUEST_MAX_TOOLS' };
  let bytes = 0;
  let properties = 0;
  for (const { path, schema, description } of tools) {
    if (typeof description === 'string') bytes += utf8Bytes(description);
    if (schema !== undefined) {
      const measured = measureSchema(schema, schemaCaps(limits));
      if (isSchemaExcess(measured)) return { path, what: measured.measure, count: measured.count, limit: measured.limit, setting: SCHEMA_SETTINGS[measured.measure] };
      bytes += measured.bytes;
      properties += measured.properties;
    }
    if (bytes > limits.toolsMaxBytes) return { path: toolsPath, what: 'bytes', count: bytes, limit: limits.toolsMaxBytes, setting: 'REQUEST_TOOLS_MAX_BYTES' };
    if (properties > limits.toolsMaxProperties) return { path: toolsPath, what: 'properties', count: properties, limit: limits.toolsMaxProperties, setting: 'REQUEST_TOOLS_MAX_PROPERTIES' };
  }
  return undefined;
}

/** Stop strings against MAX_STOP_STRINGS and MAX_STOP_CHARS. */
export function stopExcess(path: Array<string | number>, stop: unknown): RequestCostExcess | undefined {
  const list = typeof stop === 'string' ? [stop] : Array.isArray(stop) ? stop : [];
  if (list.length > MAX_STOP_STRINGS) return { path, what: 'stop strings', count: list.length, limit: MAX_STOP_STRINGS };
  for (let i = 0; i < list.length; i++) {
    const text: unknown = list[i];
    if (typeof text === 'string' && text.length > MAX_STOP_CHARS) {
      return { path: typeof stop === 'string' ? path : [...path, i], what: 'characters', count: text.length, limit: MAX_STOP_CHARS };
    }
  }
  return undefined;
}

/**
 * The cost limits of Weft's own generate request, read from the message as it came (before its
 * schema parses it, which would walk every property first): the worker's check before it builds
 * any grammar.
 */
export function generateRequestExcess(request: unknown, limits: RequestCostLimits): RequestCostExcess | undefined {
  if (request === null || typeof request !== 'object') return undefined;
  const { jsonSchema, tools, stop } = request as Record<string, unknown>;
  if (jsonSchema !== undefined) {
    const excess = schemaExcessAt(jsonSchema, ['jsonSchema'], limits);
    if (excess) return excess;
  }
  if (Array.isArray(tools)) {
    const entries = tools.map((tool: unknown, i): ToolCostEntry => {
      const { parameters, description } = tool !== null && typeof tool === 'object' ? (tool as Record<string, unknown>) : {};
      return { path: ['tools', i, 'parameters'], schema: parameters, description };
    });
    const excess = toolsExcess(['tools'], entries, limits);
    if (excess) return excess;
  }
  return stopExcess(['stop'], stop);
}

/**
 * The refusal in words: `response_format.json_schema.schema has at least 400000 properties; the
 * limit is 2000 (REQUEST_SCHEMA_MAX_PROPERTIES)`. Schema measures stop counting past their limit,
 * hence "at least".
 */
export function describeCostExcess(excess: RequestCostExcess, field: string): string {
  return `${field} ${measured(excess)}; the limit is ${excess.limit}${excess.setting ? ` (${excess.setting})` : ''}`;
}

function measured({ what, count, limit }: RequestCostExcess): string {
  switch (what) {
    case 'bytes':
      return `takes more than ${limit} bytes of JSON`;
    case 'depth':
      return `nests more than ${limit} levels deep`;
    case 'properties':
    case 'alternatives':
      return `has at least ${count} ${what === 'alternatives' ? 'enum values and oneOf/anyOf/allOf branches' : what}`;
    case 'characters':
      return `is ${count} characters long`;
    case 'tools':
    case 'stop strings':
    case 'entries':
      return `has ${count} ${what}`;
  }
}

function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Surrogate pairs count 2 + 2: four bytes, as UTF-8 writes them.
    if (code >= 0x80) bytes += code >= 0x800 && (code < 0xd800 || code > 0xdfff) ? 2 : 1;
  }
  return bytes;
}
