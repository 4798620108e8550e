import { ErrorCode, type ToolDefinition } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { countStringFields, toGrammarSchema } from './grammar-schema';
import { forcedCallSchema, grammarLimits, replyMode } from './tool-choice';

const tool = (name: string, parameters: Record<string, unknown> = { type: 'object', properties: { q: { type: 'string' } } }): ToolDefinition => ({
  name,
  description: name,
  parameters,
});
const base = { model: 'm', messages: [{ role: 'user' as const, content: 'x' }] };

describe('replyMode', () => {
  it('picks text, native tools, a forced call or JSON from the request', () => {
    expect(replyMode(base)).toEqual({ kind: 'text' });
    expect(replyMode({ ...base, tools: [tool('a')] }).kind).toBe('tools');
    expect(replyMode({ ...base, tools: [tool('a')], toolChoice: 'none' }).kind).toBe('text');
    expect(replyMode({ ...base, tools: [tool('a'), tool('b')], toolChoice: 'required' })).toMatchObject({ kind: 'forced-tool' });
    expect(replyMode({ ...base, tools: [tool('a'), tool('b')], toolChoice: { name: 'b' } })).toEqual({ kind: 'forced-tool', tools: [tool('b')] });
    expect(replyMode({ ...base, jsonSchema: { type: 'object' } })).toEqual({ kind: 'json', schema: { type: 'object' } });
  });

  it('rejects contradictory requests as INFERENCE.INVALID_REQUEST', () => {
    const invalid = { code: ErrorCode.InvalidRequest };
    expect(() => replyMode({ ...base, jsonSchema: {}, tools: [tool('a')] })).toThrow(expect.objectContaining(invalid));
    expect(() => replyMode({ ...base, toolChoice: 'required' })).toThrow(expect.objectContaining(invalid));
    expect(() => replyMode({ ...base, tools: [tool('a')], toolChoice: { name: 'zz' } })).toThrow(expect.objectContaining(invalid));
  });
});

describe('grammar schema', () => {
  const limits = { maxStringChars: 50, maxArrayItems: 5 };

  it('caps strings and arrays and keeps what the grammar can express', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 500, pattern: '^x' },
        short: { type: 'string', maxLength: 10 },
        list: { type: 'array', items: { type: 'integer', minimum: 0 } },
        either: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        kind: { enum: ['a', 'b'] },
        nullable: { type: ['string', 'null'] },
      },
      required: ['name'],
    };
    expect(toGrammarSchema(schema, limits)).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 50 },
        short: { type: 'string', maxLength: 10 },
        list: { type: 'array', items: { type: 'integer' }, maxItems: 5 },
        either: { oneOf: [{ type: 'string', maxLength: 50 }, { type: 'null' }] },
        kind: { enum: ['a', 'b'] },
        nullable: { oneOf: [{ type: 'string', maxLength: 50 }, { type: ['null'] }] },
      },
    });
  });

  it('splits the reply budget across the string slots of the largest tool', () => {
    expect(countStringFields({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'string' } } } })).toBe(5);
    expect(grammarLimits([tool('a')], 1000).maxStringChars).toBe(2000);
    expect(grammarLimits([tool('a', { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } })], 1000).maxStringChars).toBe(1000);
    expect(grammarLimits([tool('a')], 1).maxStringChars).toBe(32);
  });

  it('describes a forced call as {name, arguments} for each tool', () => {
    expect(forcedCallSchema([tool('a'), tool('b')], limits)).toEqual({
      oneOf: [
        { type: 'object', properties: { name: { const: 'a' }, arguments: { type: 'object', properties: { q: { type: 'string', maxLength: 50 } } } } },
        { type: 'object', properties: { name: { const: 'b' }, arguments: { type: 'object', properties: { q: { type: 'string', maxLength: 50 } } } } },
      ],
    });
  });
});
