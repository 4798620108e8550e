import { describe, expect, it } from 'vitest';
import { inUtf16Units, PARAMS_GRAMMAR_MODULE, patchFunctionParamsLengthCheck } from './function-params-patch';
import { importNodeLlamaCppInternal } from './node-llama-cpp-internals';

interface ParamsGrammar {
  _paramsSchema: unknown;
  parseParams(callText: string): { params: unknown };
}

async function paramsGrammar(schema: unknown): Promise<ParamsGrammar> {
  const { FunctionCallParamsGrammar } = await importNodeLlamaCppInternal<{ FunctionCallParamsGrammar: { prototype: ParamsGrammar } }>(PARAMS_GRAMMAR_MODULE);
  // Only the check is under test: an instance without the native grammar behind it.
  const grammar = Object.create(FunctionCallParamsGrammar.prototype) as ParamsGrammar;
  grammar._paramsSchema = schema;
  return grammar;
}

const capped = { type: 'object', properties: { text: { type: 'string', maxLength: 3 } } };

describe('function params length check patch', () => {
  it('doubles every maxLength in a copy, leaving the schema as it was', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', maxLength: 5 }, b: { type: 'array', items: { type: 'string', maxLength: 1 } } } };
    expect(inUtf16Units(schema)).toEqual({
      type: 'object',
      properties: { a: { type: 'string', maxLength: 10 }, b: { type: 'array', items: { type: 'string', maxLength: 2 } } },
    });
    expect(schema.properties.a.maxLength).toBe(5);
  });

  it('lets a call whose capped string holds characters beyond U+FFFF through, as the grammar did', async () => {
    expect(await patchFunctionParamsLengthCheck()).toBe(true);
    const grammar = await paramsGrammar(capped);
    expect(grammar.parseParams('{"text": "😀😀😀"}\n\n\n\n').params).toEqual({ text: '😀😀😀' });
    expect(grammar._paramsSchema).toBe(capped);
    // What the grammar could never have admitted is still refused.
    expect(() => grammar.parseParams('{"text": "abcdefg"}\n\n\n\n')).toThrow(/at most 6 characters/);
  });
});
