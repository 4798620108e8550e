/**
 * Turns a tool's (or a request's) JSON Schema into the subset node-llama-cpp compiles to a
 * grammar. Keywords the grammar cannot express (pattern, minimum, ...) are dropped here and
 * checked afterwards by `validateJson` against the original schema. Every string gets a
 * `maxLength`, so a model cannot spend its whole token budget inside one string.
 */
export type JsonSchema = Record<string, unknown>;

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);
const ANY_SCALAR = { type: ['string', 'number', 'integer', 'boolean', 'null'] };

export interface GrammarSchemaOptions {
  /** Cap on every string's length, in characters. */
  maxStringChars: number;
  /** Cap on every array's length. */
  maxArrayItems: number;
}

export function toGrammarSchema(schema: unknown, options: GrammarSchemaOptions): JsonSchema {
  if (!isObject(schema)) return ANY_SCALAR;
  const out: JsonSchema = {};
  if (typeof schema.description === 'string') out.description = schema.description;
  if (isObject(schema.$defs)) {
    out.$defs = Object.fromEntries(Object.entries(schema.$defs).map(([k, v]) => [k, toGrammarSchema(v, options)]));
  }
  if (typeof schema.$ref === 'string') return { ...out, $ref: schema.$ref };
  if ('const' in schema) return { ...out, const: schema.const };
  if (Array.isArray(schema.enum)) return { ...out, enum: schema.enum };
  const alternatives = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (alternatives) return { ...out, oneOf: alternatives.map((s) => toGrammarSchema(s, options)) };

  const type = schema.type ?? (isObject(schema.properties) ? 'object' : schema.items !== undefined ? 'array' : undefined);
  if (type === 'object') return { ...out, ...objectSchema(schema, options) };
  if (type === 'array') return { ...out, ...arraySchema(schema, options) };
  if (type === 'string') return { ...out, ...stringSchema(schema, options) };
  if (typeof type === 'string' && SCALAR_TYPES.has(type)) return { ...out, type };
  if (Array.isArray(type)) {
    const scalars = type.filter((t): t is string => typeof t === 'string' && SCALAR_TYPES.has(t) && t !== 'string');
    const branches: JsonSchema[] = [];
    if (type.includes('string')) branches.push(stringSchema(schema, options));
    if (scalars.length > 0) branches.push({ type: scalars });
    if (type.includes('object')) branches.push(objectSchema(schema, options));
    if (type.includes('array')) branches.push(arraySchema(schema, options));
    if (branches.length === 1) return { ...out, ...branches[0] };
    if (branches.length > 1) return { ...out, oneOf: branches };
  }
  return { ...out, ...ANY_SCALAR };
}

function objectSchema(schema: JsonSchema, options: GrammarSchemaOptions): JsonSchema {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const out: JsonSchema = {
    type: 'object',
    properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, toGrammarSchema(v, options)])),
  };
  if (isObject(schema.additionalProperties)) {
    out.additionalProperties = toGrammarSchema(schema.additionalProperties, options);
  } else if (schema.additionalProperties === true || (schema.additionalProperties === undefined && Object.keys(properties).length === 0)) {
    // A free-form object: scalar values only, so the grammar stays bounded.
    out.additionalProperties = stringOrScalar(options);
  }
  return out;
}

function arraySchema(schema: JsonSchema, options: GrammarSchemaOptions): JsonSchema {
  const out: JsonSchema = { type: 'array', items: toGrammarSchema(schema.items, options) };
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : undefined;
  const maxItems = Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : options.maxArrayItems, options.maxArrayItems);
  if (minItems !== undefined) out.minItems = Math.min(minItems, maxItems);
  out.maxItems = maxItems;
  return out;
}

function stringSchema(schema: JsonSchema, options: GrammarSchemaOptions): JsonSchema {
  if (schema.format === 'date-time' || schema.format === 'date' || schema.format === 'time') {
    return { type: 'string', format: schema.format };
  }
  const out: JsonSchema = { type: 'string' };
  const maxLength = Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : options.maxStringChars, options.maxStringChars);
  if (typeof schema.minLength === 'number') out.minLength = Math.min(schema.minLength, maxLength);
  out.maxLength = maxLength;
  return out;
}

function stringOrScalar(options: GrammarSchemaOptions): JsonSchema {
  return { oneOf: [{ type: 'string', maxLength: options.maxStringChars }, { type: ['number', 'boolean', 'null'] }] };
}

/** Array items counted when splitting a budget (an array rarely fills its grammar cap). */
const TYPICAL_ARRAY_ITEMS = 4;

/** How many strings a schema's value typically holds: the slots a reply budget is split across. */
export function countStringFields(schema: unknown): number {
  if (!isObject(schema)) return 1;
  if (schema.type === 'string') return 1;
  if (isObject(schema.properties)) {
    return Object.values(schema.properties).reduce<number>((sum, s) => sum + countStringFields(s), 0);
  }
  if (schema.items !== undefined) {
    const items = typeof schema.maxItems === 'number' ? Math.min(schema.maxItems, TYPICAL_ARRAY_ITEMS) : TYPICAL_ARRAY_ITEMS;
    return items * countStringFields(schema.items);
  }
  return 0;
}

export function isObject(value: unknown): value is JsonSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
