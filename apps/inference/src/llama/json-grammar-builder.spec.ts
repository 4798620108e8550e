import { AppError, ErrorCode } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { translateToGbnf } from './json-grammar-builder';
import { importNodeLlamaCppInternal } from './node-llama-cpp-internals';
import { INTEGER_GBNF, NUMBER_GBNF, patchNumberGrammar } from './number-grammar-patch';

type Translate = { getGbnfGrammarForGbnfJsonSchema: (schema: unknown) => string };

const schema = {
  type: 'object',
  properties: { count: { type: 'integer' }, ratio: { type: 'number' }, name: { type: 'string', maxLength: 40 }, kind: { enum: ['a', 'b'] } },
};

describe('a JSON Schema translated to GBNF off the main thread', () => {
  it("gives node-llama-cpp's own grammar, with the worker's tightened number rules", async () => {
    expect(await patchNumberGrammar()).toBe(true);
    const { getGbnfGrammarForGbnfJsonSchema } = await importNodeLlamaCppInternal<Translate>('utils/gbnfJson/getGbnfGrammarForGbnfJsonSchema.js');
    const gbnf = await translateToGbnf(schema, 10_000);
    expect(gbnf).toBe(getGbnfGrammarForGbnfJsonSchema(schema));
    expect(gbnf).toContain(INTEGER_GBNF);
    expect(gbnf).toContain(NUMBER_GBNF);
  });

  it('stops a translation past its budget and refuses it, naming INFERENCE_GRAMMAR_BUDGET_MS', async () => {
    // No thread starts and imports node-llama-cpp's translator within a millisecond.
    const refused = await translateToGbnf(schema, 1).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: ErrorCode.InvalidRequest, details: { budgetMs: 1, setting: 'INFERENCE_GRAMMAR_BUDGET_MS' } });
    expect((refused as AppError).message).toContain('took longer than 1 ms to build (INFERENCE_GRAMMAR_BUDGET_MS)');
  });

  it("passes on the translator's own error for a schema it cannot read", async () => {
    await expect(translateToGbnf({ oneOf: 3 }, 10_000)).rejects.toThrow('schema.oneOf.map is not a function');
  });
});
