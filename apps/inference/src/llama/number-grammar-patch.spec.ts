import { describe, expect, it } from 'vitest';
import { INTEGER_GBNF, NUMBER_GBNF, patchNumberGrammar } from './number-grammar-patch';

describe('number grammar patch', () => {
  it('makes node-llama-cpp integers exponent-free and bounded, numbers finite', async () => {
    expect(await patchNumberGrammar()).toBe(true);
    const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
    const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
    try {
      const grammar = await llama.createGrammarForJsonSchema({ type: 'object', properties: { n: { type: 'integer' }, x: { type: 'number' } } });
      expect(grammar.grammar).toContain(INTEGER_GBNF);
      expect(grammar.grammar).toContain(NUMBER_GBNF);
      expect(grammar.grammar).not.toMatch(/\[eE\] \[-\+\]\? \("0" \| \[1-9\] \[0-9\]\{0,15\}\)/);
      expect(grammar.parse('{"n": 12, "x": -1.5e10}')).toEqual({ n: 12, x: -1.5e10 });
    } finally {
      await llama.dispose();
    }
  });
});
