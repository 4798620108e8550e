import { describe, expect, it } from 'vitest';
import { recommendFor } from './recommended-models';

const GiB = 1024 ** 3;

describe('recommended models', () => {
  it('offers the largest models that fit a GPU, largest first', () => {
    const { models, fits } = recommendFor({ kind: 'gpu', bytes: 16 * GiB, describe: 'GPU' });
    expect(fits).toBe(true);
    expect(models.map((m) => m.id)).toEqual(['qwen2.5-coder-14b', 'qwen2.5-coder-7b', 'qwen2.5-coder-1.5b']);
  });

  it('sizes to a 24 GiB GPU with room for the KV cache', () => {
    expect(recommendFor({ kind: 'gpu', bytes: 24 * GiB, describe: 'GPU' }).models[0]?.id).toBe('qwen3-coder-30b-a3b');
    expect(recommendFor({ kind: 'gpu', bytes: 80 * GiB, describe: 'GPU' }).models[0]?.id).toBe('qwen2.5-coder-32b');
  });

  it('leaves half the RAM to the rest of a machine without a GPU: nothing over 12 GB on 24 GiB', () => {
    const { models, fits } = recommendFor({ kind: 'ram', bytes: 24 * GiB, describe: 'RAM' });
    expect(fits).toBe(true);
    expect(models.map((m) => m.id)).toEqual(['qwen2.5-coder-14b', 'qwen2.5-coder-7b', 'qwen2.5-coder-1.5b']);
    expect(models.every((m) => m.sizeBytes <= 12 * GiB)).toBe(true);
    expect(recommendFor({ kind: 'ram', bytes: 8 * GiB, describe: 'RAM' }).models.map((m) => m.id)).toEqual(['qwen2.5-coder-1.5b']);
    expect(recommendFor({ kind: 'ram', bytes: 48 * GiB, describe: 'RAM' }).models[0]?.id).toBe('qwen2.5-coder-32b');
  });

  it('offers the smallest alone, saying it does not fit, on a tiny host', () => {
    expect(recommendFor({ kind: 'ram', bytes: 1 * GiB, describe: 'RAM' })).toEqual({ models: [expect.objectContaining({ id: 'qwen2.5-coder-1.5b' })], fits: false });
  });
});
