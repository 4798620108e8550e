import { ErrorCode, type GenerateResult } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { asWholeReply, assertContinuable, withReplyPrefix } from './continuation';

const result: GenerateResult = {
  text: ' world',
  toolCalls: [],
  finishReason: 'stop',
  usage: { promptTokens: 30, completionTokens: 4, cachedTokens: 29, evaluatedTokens: 1 },
  timings: { totalMs: 1 },
};

describe('a reply continued from what a lost worker streamed', () => {
  it('reports the whole text, and the prefix as completion tokens rather than prompt tokens', () => {
    expect(asWholeReply(result, 'Hello', 2)).toMatchObject({
      text: 'Hello world',
      usage: { promptTokens: 28, completionTokens: 6, cachedTokens: 28 },
    });
    expect(asWholeReply(result, undefined, 0)).toBe(result);
  });

  it('puts the prefix as the last, open assistant turn', () => {
    expect(withReplyPrefix([{ role: 'user', content: 'hi' }], 'Hel')).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hel' },
    ]);
  });

  it('refuses a JSON Schema reply, whose grammar cannot start mid-value', () => {
    expect(() => assertContinuable({ model: 'm', messages: [{ role: 'user', content: 'hi' }], jsonSchema: {}, continueFrom: '{' })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidRequest }),
    );
  });
});
