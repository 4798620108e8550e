import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeltaCoalescer } from './delta-coalescer';

describe('DeltaCoalescer', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  it('sends the first delta at once and joins what follows within the interval into one message', () => {
    const sent: string[] = [];
    const deltas = new DeltaCoalescer(50, (text) => sent.push(text));
    deltas.push('He');
    expect(sent).toEqual(['He']);
    vi.advanceTimersByTime(10);
    deltas.push('l');
    deltas.push('lo');
    expect(sent).toEqual(['He']);
    vi.advanceTimersByTime(40);
    expect(sent).toEqual(['He', 'llo']);
    vi.advanceTimersByTime(100);
    deltas.push(' world');
    expect(sent).toEqual(['He', 'llo', ' world']);
  });

  it('sends what it holds on flush, and nothing after: no timer is left behind', () => {
    const sent: string[] = [];
    const deltas = new DeltaCoalescer(50, (text) => sent.push(text));
    deltas.push('a');
    deltas.push('b');
    deltas.flush();
    expect(sent).toEqual(['a', 'b']);
    vi.advanceTimersByTime(1000);
    deltas.flush();
    expect(sent).toEqual(['a', 'b']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sends every delta as it comes with interval 0', () => {
    const sent: string[] = [];
    const deltas = new DeltaCoalescer(0, (text) => sent.push(text));
    for (const piece of ['a', 'b', 'c']) deltas.push(piece);
    expect(sent).toEqual(['a', 'b', 'c']);
  });
});
