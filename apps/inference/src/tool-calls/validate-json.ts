import { isObject, type JsonSchema } from './grammar-schema';

/** Nesting beyond this is reported rather than followed (a `$ref` cycle, or a hostile schema). */
const MAX_DEPTH = 32;

/**
 * A small JSON Schema validator for what tools declare: type (integers must be safe integers,
 * so `1e400` or `5e-1` from a grammar that admits exponents fail), properties, required,
 * additionalProperties, enum, const, string length, minimum/maximum, array items and length,
 * oneOf/anyOf/allOf, and `$ref` into `#/$defs`. Returns the problems, empty when valid.
 */
export function validateJson(value: unknown, schema: unknown): string[] {
  const problems: string[] = [];
  const root = isObject(schema) ? schema : {};
  check(value, root, '$', root, problems, 0);
  return problems;
}

function check(value: unknown, schema: JsonSchema, path: string, root: JsonSchema, problems: string[], depth: number): void {
  if (depth > MAX_DEPTH) {
    problems.push(`${path}: schema nested too deeply`);
    return;
  }
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(schema.$ref, root);
    if (!target) problems.push(`${path}: unresolvable $ref ${schema.$ref}`);
    else check(value, target, path, root, problems, depth + 1);
    return;
  }
  if ('const' in schema && !deepEqual(value, schema.const)) problems.push(`${path}: must be ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => deepEqual(option, value))) {
    problems.push(`${path}: must be one of ${JSON.stringify(schema.enum)}`);
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key];
    if (!Array.isArray(options)) continue;
    const matches = options.filter((option) => isObject(option) && validateAt(value, option, path, root, depth).length === 0);
    if (matches.length === 0 || (key === 'oneOf' && matches.length > 1)) {
      problems.push(`${path}: must match ${key === 'oneOf' ? 'exactly one' : 'at least one'} of ${options.length} alternatives`);
    }
  }
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) if (isObject(part)) check(value, part, path, root, problems, depth + 1);
  }
  const types = schema.type === undefined ? undefined : ([] as unknown[]).concat(schema.type);
  if (types && !types.some((t) => typeof t === 'string' && hasType(value, t))) {
    problems.push(`${path}: must be ${types.join(' or ')}, got ${describe(value)}`);
    return;
  }
  if (typeof value === 'string') checkString(value, schema, path, problems);
  else if (typeof value === 'number') checkNumber(value, schema, path, problems);
  else if (Array.isArray(value)) checkArray(value, schema, path, root, problems, depth);
  else if (isObject(value)) checkObject(value, schema, path, root, problems, depth);
}

function validateAt(value: unknown, schema: JsonSchema, path: string, root: JsonSchema, depth: number): string[] {
  const problems: string[] = [];
  check(value, schema, path, root, problems, depth + 1);
  return problems;
}

function checkString(value: string, schema: JsonSchema, path: string, problems: string[]): void {
  const length = characterCount(value);
  if (typeof schema.minLength === 'number' && length < schema.minLength) problems.push(`${path}: shorter than ${schema.minLength}`);
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) problems.push(`${path}: longer than ${schema.maxLength}`);
}

function checkNumber(value: number, schema: JsonSchema, path: string, problems: string[]): void {
  if (!Number.isFinite(value)) problems.push(`${path}: must be a finite number`);
  if (typeof schema.minimum === 'number' && value < schema.minimum) problems.push(`${path}: below ${schema.minimum}`);
  if (typeof schema.maximum === 'number' && value > schema.maximum) problems.push(`${path}: above ${schema.maximum}`);
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) problems.push(`${path}: not above ${schema.exclusiveMinimum}`);
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) problems.push(`${path}: not below ${schema.exclusiveMaximum}`);
}

function checkArray(value: unknown[], schema: JsonSchema, path: string, root: JsonSchema, problems: string[], depth: number): void {
  if (typeof schema.minItems === 'number' && value.length < schema.minItems) problems.push(`${path}: fewer than ${schema.minItems} items`);
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) problems.push(`${path}: more than ${schema.maxItems} items`);
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
  value.forEach((item, i) => {
    const itemSchema = prefix[i] ?? schema.items;
    if (isObject(itemSchema)) check(item, itemSchema, `${path}[${i}]`, root, problems, depth + 1);
  });
}

function checkObject(value: JsonSchema, schema: JsonSchema, path: string, root: JsonSchema, problems: string[], depth: number): void {
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const key of Array.isArray(schema.required) ? schema.required : []) {
    if (typeof key === 'string' && !(key in value)) problems.push(`${path}.${key}: required`);
  }
  for (const [key, item] of Object.entries(value)) {
    const propertySchema = properties[key];
    if (isObject(propertySchema)) check(item, propertySchema, `${path}.${key}`, root, problems, depth + 1);
    else if (schema.additionalProperties === false) problems.push(`${path}.${key}: not allowed`);
    else if (isObject(schema.additionalProperties)) check(item, schema.additionalProperties, `${path}.${key}`, root, problems, depth + 1);
  }
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      return false;
  }
}

function resolveRef(ref: string, root: JsonSchema): JsonSchema | undefined {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!match) return undefined;
  const defs = root[match[1] as string];
  const target = isObject(defs) ? defs[match[2] as string] : undefined;
  return isObject(target) ? target : undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isSafeInteger(value)) return Number.isFinite(value) ? `number ${value}` : 'a non-finite number';
  return typeof value;
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Characters as llama.cpp's grammar counts them: code points, where bytes that do not form valid
 * UTF-8 (decoded as U+FFFD, several per sequence) are not counted. Models with byte tokens can
 * emit such bytes, and the grammar's length limits do not see them.
 */
export function characterCount(value: string): number {
  let count = 0;
  for (const char of value) if (char !== '\uFFFD') count++;
  return count;
}
