import { describe, expect, it } from 'vitest';
import { patchContextLockYield } from './context-lock-patch';

describe('patchContextLockYield', () => {
  it('changes nothing and says so when this node-llama-cpp lacks a method it wraps', () => {
    class LlamaContext {
      _decodeTokens() {
        return Promise.resolve();
      }
    }
    class LlamaContextSequence {
      _eraseContextTokenRanges() {
        return Promise.resolve();
      }
    }
    const before = LlamaContext.prototype._decodeTokens;
    const lib = { LlamaContext, LlamaContextSequence } as unknown as Parameters<typeof patchContextLockYield>[0];
    expect(patchContextLockYield(lib)).toBe(false);
    expect(LlamaContext.prototype._decodeTokens).toBe(before);
  });

  it('wraps the installed node-llama-cpp once, however often it is applied', async () => {
    const lib = await import('node-llama-cpp');
    expect(patchContextLockYield(lib)).toBe(true);
    const wrapped = (lib.LlamaContext.prototype as unknown as { _decodeTokens: unknown })._decodeTokens;
    expect(patchContextLockYield(lib)).toBe(true);
    expect((lib.LlamaContext.prototype as unknown as { _decodeTokens: unknown })._decodeTokens).toBe(wrapped);
  });
});
