import { createLogger } from '@weft/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeTestModel, removeDir } from '../../testing/worker-harness';
import { LlamaRuntime, type LlamaModel } from '../llama-runtime';
import { TokenKinds } from './token-kinds';

type Token = ReturnType<LlamaModel['tokenize']>[number];

/** TokenKinds against the model it remembers for, over the test model's whole vocabulary. */
describe('TokenKinds on a real model', () => {
  let dir: string;
  let runtime: LlamaRuntime;
  let model: LlamaModel;

  beforeAll(async () => {
    dir = await makeTempDir('token-kinds-');
    const path = await makeTestModel(dir);
    runtime = new LlamaRuntime(createLogger('test', 'silent'));
    model = await (await runtime.get()).llama.loadModel({ modelPath: path, gpuLayers: 0 });
  });

  afterAll(async () => {
    await model?.dispose();
    await runtime?.dispose();
    await removeDir(dir);
  });

  it('answers as the model does for every token, asking the model once per token', () => {
    const tokens = [...model.iterateAllTokens()] as Token[];
    expect(tokens.length).toBeGreaterThan(100);
    const kinds = TokenKinds.of(model);
    expect(TokenKinds.of(model)).toBe(kinds);

    const asked = { eog: 0, special: 0 };
    const { isEogToken, isSpecialToken } = model;
    const counted = model as unknown as { isEogToken: LlamaModel['isEogToken']; isSpecialToken: LlamaModel['isSpecialToken'] };
    counted.isEogToken = (token) => (asked.eog++, isEogToken.call(model, token));
    counted.isSpecialToken = (token) => (asked.special++, isSpecialToken.call(model, token));
    try {
      for (const token of tokens) {
        expect(kinds.isEog(token), `isEog(${token})`).toBe(isEogToken.call(model, token));
        expect(kinds.isSpecial(token), `isSpecial(${token})`).toBe(isSpecialToken.call(model, token));
      }
      const firstPass = { ...asked };
      for (const token of tokens) {
        kinds.isEog(token);
        kinds.isSpecial(token);
      }
      expect(asked).toEqual(firstPass);
      expect(firstPass.special).toBe(tokens.length);
    } finally {
      delete (counted as Partial<typeof counted>).isEogToken;
      delete (counted as Partial<typeof counted>).isSpecialToken;
    }
    // The test model's end-of-generation token is one of them, and special.
    const eos = model.tokens.eos;
    expect(eos).not.toBeNull();
    expect(kinds.isEog(eos as Token)).toBe(true);
    expect(kinds.isSpecial(eos as Token)).toBe(true);
  });
});
