import { describe, expect, it } from 'vitest';
import {
  DEFAULT_REQUEST_COST_LIMITS,
  MAX_STOP_CHARS,
  MAX_STOP_STRINGS,
  describeCostExcess,
  generateRequestExcess,
  measureSchema,
  schemaExcessAt,
  stopExcess,
  toolsExcess,
  type RequestCostLimits,
} from './request-cost';

const limits: RequestCostLimits = { ...DEFAULT_REQUEST_COST_LIMITS };

function flatObject(count: number, value: unknown = { type: 'string' }): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) properties[`p${i}`] = value;
  return { type: 'object', properties };
}

function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = { type: 'array', items: schema };
  return schema;
}

describe('request cost limits', () => {
  it('accepts a schema at every limit and reports its size', () => {
    const measured = measureSchema(flatObject(limits.schemaMaxProperties), { bytes: limits.schemaMaxBytes, depth: limits.schemaMaxDepth, properties: limits.schemaMaxProperties, alternatives: limits.schemaMaxAlternatives });
    expect(measured).toEqual({ bytes: JSON.stringify(flatObject(limits.schemaMaxProperties)).length, properties: limits.schemaMaxProperties });
  });

  it('counts bytes as UTF-8 bytes of the JSON text', () => {
    const schema = { description: 'é€😀', enum: [1, true, null] };
    const measured = measureSchema(schema, { bytes: 1000, depth: 10, properties: 10, alternatives: 10 });
    expect(measured).toEqual({ bytes: Buffer.byteLength(JSON.stringify(schema)), properties: 0 });
  });

  it('refuses a schema with one property too many, naming the count, the limit and the setting', () => {
    const excess = schemaExcessAt(flatObject(limits.schemaMaxProperties + 1), ['jsonSchema'], limits);
    expect(excess).toEqual({ path: ['jsonSchema'], what: 'properties', count: 2001, limit: 2000, setting: 'REQUEST_SCHEMA_MAX_PROPERTIES' });
    expect(describeCostExcess(excess!, 'response_format.json_schema.schema')).toBe(
      'response_format.json_schema.schema has at least 2001 properties; the limit is 2000 (REQUEST_SCHEMA_MAX_PROPERTIES)',
    );
  });

  it('sums properties over nested objects', () => {
    const schema = { type: 'object', properties: { a: flatObject(1500), b: flatObject(600) } };
    expect(schemaExcessAt(schema, ['s'], limits)).toMatchObject({ what: 'properties', limit: 2000 });
  });

  it('reads a property named like a keyword as a property, not as the keyword', () => {
    const schema = { type: 'object', properties: { enum: { type: 'string' }, properties: { type: 'string' } } };
    expect(measureSchema(schema, { bytes: 1000, depth: 10, properties: 2, alternatives: 0 })).toMatchObject({ properties: 2 });
  });

  it('refuses a schema nested past the depth limit without recursing', () => {
    expect(schemaExcessAt(nested(limits.schemaMaxDepth - 1), ['s'], limits)).toBeUndefined();
    const excess = schemaExcessAt(nested(100_000), ['s'], { ...limits, schemaMaxBytes: 10_000_000 });
    expect(excess).toMatchObject({ what: 'depth', limit: limits.schemaMaxDepth, setting: 'REQUEST_SCHEMA_MAX_DEPTH' });
    expect(describeCostExcess(excess!, 'tools[0].input_schema')).toBe('tools[0].input_schema nests more than 64 levels deep; the limit is 64 (REQUEST_SCHEMA_MAX_DEPTH)');
  });

  it('refuses a schema past the byte limit', () => {
    const schema = { type: 'string', description: 'x'.repeat(limits.schemaMaxBytes) };
    const excess = schemaExcessAt(schema, ['s'], limits);
    expect(excess).toMatchObject({ what: 'bytes', limit: limits.schemaMaxBytes, setting: 'REQUEST_SCHEMA_MAX_BYTES' });
    expect(describeCostExcess(excess!, 's')).toBe(`s takes more than ${limits.schemaMaxBytes} bytes of JSON; the limit is ${limits.schemaMaxBytes} (REQUEST_SCHEMA_MAX_BYTES)`);
  });

  it('refuses enum values and branches past the alternatives limit', () => {
    const values = Array.from({ length: limits.schemaMaxAlternatives + 1 }, (_, i) => i);
    expect(schemaExcessAt({ enum: values }, ['s'], limits)).toMatchObject({ what: 'alternatives', count: 1001, setting: 'REQUEST_SCHEMA_MAX_ALTERNATIVES' });
    const branches = { anyOf: values.slice(0, 600).map(() => ({ type: 'null' })), oneOf: values.slice(0, 401).map(() => ({ type: 'null' })) };
    expect(schemaExcessAt(branches, ['s'], limits)).toMatchObject({ what: 'alternatives' });
  });

  it('refuses more tools than the limit', () => {
    const tools = Array.from({ length: limits.maxTools + 1 }, (_, i) => ({ path: ['tools', i], schema: undefined }));
    expect(toolsExcess(['tools'], tools, limits)).toEqual({ path: ['tools'], what: 'tools', count: 129, limit: 128, setting: 'REQUEST_MAX_TOOLS' });
  });

  it('refuses one tool schema past a schema limit, naming that tool', () => {
    const tools = [
      { path: ['tools', 0, 'parameters'], schema: flatObject(2) },
      { path: ['tools', 1, 'parameters'], schema: flatObject(2001) },
    ];
    expect(toolsExcess(['tools'], tools, limits)).toMatchObject({ path: ['tools', 1, 'parameters'], what: 'properties' });
  });

  it('refuses tool schemas past the totals even when each is within the per-schema limits', () => {
    const tools = Array.from({ length: 3 }, (_, i) => ({ path: ['tools', i], schema: flatObject(1800) }));
    expect(toolsExcess(['tools'], tools, limits)).toMatchObject({ path: ['tools'], what: 'properties', count: 5400, limit: 5000, setting: 'REQUEST_TOOLS_MAX_PROPERTIES' });
    const described = Array.from({ length: 6 }, (_, i) => ({ path: ['tools', i], schema: { type: 'object' }, description: 'x'.repeat(100_000) }));
    expect(toolsExcess(['tools'], described, limits)).toMatchObject({ path: ['tools'], what: 'bytes', limit: 512 * 1024, setting: 'REQUEST_TOOLS_MAX_BYTES' });
  });

  it('refuses too many or too long stop strings', () => {
    expect(stopExcess(['stop'], Array.from({ length: MAX_STOP_STRINGS }, () => 'x'))).toBeUndefined();
    expect(stopExcess(['stop'], Array.from({ length: MAX_STOP_STRINGS + 1 }, () => 'x'))).toEqual({ path: ['stop'], what: 'stop strings', count: 17, limit: 16 });
    expect(stopExcess(['stop'], ['ok', 'y'.repeat(MAX_STOP_CHARS + 1)])).toEqual({ path: ['stop', 1], what: 'characters', count: 65, limit: 64 });
    expect(stopExcess(['stop'], 'z'.repeat(MAX_STOP_CHARS + 1))).toMatchObject({ path: ['stop'] });
  });

  it("checks Weft's generate request field by field", () => {
    expect(generateRequestExcess({ jsonSchema: flatObject(10), stop: ['\n'] }, limits)).toBeUndefined();
    expect(generateRequestExcess({ jsonSchema: flatObject(400_000) }, limits)).toMatchObject({ path: ['jsonSchema'], what: 'properties', count: 400_000 });
    expect(generateRequestExcess({ tools: [{ parameters: flatObject(1) }, { parameters: nested(200) }] }, limits)).toMatchObject({ path: ['tools', 1, 'parameters'], what: 'depth' });
  });
});
