import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeltaBatcher } from './delta-batcher';

describe('DeltaBatcher', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('writes the deltas of one window as one, in order, and the rest on close', async () => {
    const written: string[] = [];
    const batcher = new DeltaBatcher(async (text) => void written.push(text), 25);
    batcher.push('Hel');
    batcher.push('lo');
    batcher.push('');
    expect(written).toEqual([]);
    await vi.advanceTimersByTimeAsync(25);
    expect(written).toEqual(['Hello']);
    batcher.push(', world');
    await batcher.close();
    expect(written).toEqual(['Hello', ', world']);
  });

  it('keeps writes in order when one is slow, and reports the first failure on close', async () => {
    const written: string[] = [];
    let release: () => void = () => undefined;
    const batcher = new DeltaBatcher(async (text) => {
      if (text === 'a') await new Promise<void>((r) => (release = r));
      if (text === 'b') throw new Error('redis down');
      written.push(text);
    }, 10);
    batcher.push('a');
    await vi.advanceTimersByTimeAsync(10);
    batcher.push('b');
    await vi.advanceTimersByTimeAsync(10);
    batcher.push('c');
    release();
    await expect(batcher.close()).rejects.toThrow('redis down');
    expect(written).toEqual(['a']);
  });
});
