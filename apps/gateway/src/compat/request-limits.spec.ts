import { DEFAULT_REQUEST_COST_LIMITS } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { exceededCost } from './request-limits';

const limits = { ...DEFAULT_REQUEST_COST_LIMITS };

function flatObject(count: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) properties[`p${i}`] = { type: 'string' };
  return { type: 'object', properties };
}

describe('the compatible APIs’ cost limits', () => {
  it('finds each API’s reply format schema by its own field names', () => {
    const big = flatObject(2001);
    expect(exceededCost({ response_format: { type: 'json_schema', json_schema: { name: 'x', schema: big } } }, 'chat', limits)).toMatchObject({
      path: ['response_format', 'json_schema', 'schema'],
      what: 'properties',
    });
    expect(exceededCost({ text: { format: { type: 'json_schema', name: 'x', schema: big } } }, 'responses', limits)).toMatchObject({ path: ['text', 'format', 'schema'] });
    expect(exceededCost({ output_config: { format: { type: 'json_schema', schema: big } } }, 'messages', limits)).toMatchObject({ path: ['output_config', 'format', 'schema'] });
  });

  it('finds each API’s tool schemas by their own field names', () => {
    const tools = (tool: (schema: unknown) => unknown) => [tool(flatObject(1)), tool(flatObject(2001))];
    expect(exceededCost({ tools: tools((s) => ({ type: 'function', function: { name: 'f', parameters: s } })) }, 'chat', limits)).toMatchObject({
      path: ['tools', 1, 'function', 'parameters'],
    });
    expect(exceededCost({ tools: tools((s) => ({ type: 'function', name: 'f', parameters: s })) }, 'responses', limits)).toMatchObject({ path: ['tools', 1, 'parameters'] });
    expect(exceededCost({ tools: tools((s) => ({ name: 'f', input_schema: s })) }, 'messages', limits)).toMatchObject({ path: ['tools', 1, 'input_schema'] });
  });

  it('counts tools against REQUEST_MAX_TOOLS', () => {
    // Tools without a schema count too.
    const tools = Array.from({ length: 129 }, (_, i) => ({ name: `t${i}` }));
    expect(exceededCost({ tools }, 'messages', limits)).toEqual({ path: ['tools'], what: 'tools', count: 129, limit: 128, setting: 'REQUEST_MAX_TOOLS' });
  });

  it('counts the tools’ descriptions with their schemas against REQUEST_TOOLS_MAX_BYTES', () => {
    const tools = Array.from({ length: 6 }, (_, i) => ({ type: 'function', function: { name: `t${i}`, description: 'd'.repeat(100_000) } }));
    expect(exceededCost({ tools }, 'chat', limits)).toMatchObject({ path: ['tools'], what: 'bytes', setting: 'REQUEST_TOOLS_MAX_BYTES' });
  });

  it('bounds stop strings as `stop` and as `stop_sequences`', () => {
    const many = Array.from({ length: 17 }, (_, i) => `s${i}`);
    expect(exceededCost({ stop: many }, 'chat', limits)).toMatchObject({ path: ['stop'], what: 'stop strings' });
    expect(exceededCost({ stop: 'x'.repeat(65) }, 'completions', limits)).toMatchObject({ path: ['stop'], what: 'characters' });
    expect(exceededCost({ stop_sequences: many }, 'messages', limits)).toMatchObject({ path: ['stop_sequences'] });
  });

  it('bounds a logit bias at 300 entries', () => {
    const bias = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), 1]));
    expect(exceededCost({ logit_bias: bias(300) }, 'chat', limits)).toBeUndefined();
    expect(exceededCost({ logit_bias: bias(301) }, 'completions', limits)).toEqual({ path: ['logit_bias'], what: 'entries', count: 301, limit: 300 });
  });

  it('passes a body within every limit', () => {
    const body = { response_format: { type: 'json_schema', json_schema: { name: 'x', schema: flatObject(2000) } }, stop: ['\n'], tools: [] };
    expect(exceededCost(body, 'chat', limits)).toBeUndefined();
  });
});
