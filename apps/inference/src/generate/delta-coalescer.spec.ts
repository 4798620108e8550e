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

  it('sends the held deltas of every generation on one timer, at the earliest one due, and keeps them on that beat', () => {
    const sent: string[] = [];
    const first = new DeltaCoalescer(50, (text) => sent.push(`1:${text}`));
    const second = new DeltaCoalescer(50, (text) => sent.push(`2:${text}`));
    first.push('a');
    vi.advanceTimersByTime(20);
    second.push('x');
    expect(sent).toEqual(['1:a', '2:x']);
    vi.advanceTimersByTime(10);
    first.push('b');
    second.push('y');
    expect(vi.getTimerCount()).toBe(1);
    // The first is due at 50 ms; the second, due at 70, goes with it.
    vi.advanceTimersByTime(20);
    expect(sent).toEqual(['1:a', '2:x', '1:b', '2:y']);
    first.push('c');
    second.push('z');
    vi.advanceTimersByTime(49);
    expect(sent).toHaveLength(4);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual(['1:a', '2:x', '1:b', '2:y', '1:c', '2:z']);
  });

  it('keeps the other generations waiting when one ends, and stops the timer when none waits', () => {
    const sent: string[] = [];
    const first = new DeltaCoalescer(50, (text) => sent.push(`1:${text}`));
    const second = new DeltaCoalescer(50, (text) => sent.push(`2:${text}`));
    first.push('a');
    second.push('x');
    first.push('b');
    second.push('y');
    first.flush();
    expect(sent).toEqual(['1:a', '2:x', '1:b']);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(50);
    expect(sent).toEqual(['1:a', '2:x', '1:b', '2:y']);
    expect(vi.getTimerCount()).toBe(0);
    second.push('w');
    second.flush();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sends every delta as it comes with interval 0', () => {
    const sent: string[] = [];
    const deltas = new DeltaCoalescer(0, (text) => sent.push(text));
    for (const piece of ['a', 'b', 'c']) deltas.push(piece);
    expect(sent).toEqual(['a', 'b', 'c']);
  });
});
