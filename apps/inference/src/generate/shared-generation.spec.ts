import type { GenerateChunk } from '@weft/contracts';
import { Observable } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { SharedGeneration } from './shared-generation';

const done: GenerateChunk = {
  type: 'done',
  result: { text: 'ab', toolCalls: [], finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 2, cachedTokens: 0 }, timings: { totalMs: 1 } },
};

function follow(shared: SharedGeneration) {
  const chunks: GenerateChunk[] = [];
  let completed = false;
  const subscription = new Observable<GenerateChunk>((subscriber) => shared.attach(subscriber)).subscribe({
    next: (chunk) => chunks.push(chunk),
    complete: () => (completed = true),
  });
  return { chunks, subscription, completed: () => completed };
}

describe('SharedGeneration', () => {
  it('gives a subscriber that joins late the text so far as one delta, then the rest and the same done', () => {
    const shared = new SharedGeneration(() => undefined);
    const first = follow(shared);
    shared.delta('a');
    const retry = follow(shared);
    shared.delta('b');
    shared.finish(done);
    expect(first.chunks).toEqual([{ type: 'delta', text: 'a' }, { type: 'delta', text: 'b' }, done]);
    expect(retry.chunks).toEqual([{ type: 'delta', text: 'a' }, { type: 'delta', text: 'b' }, done]);
    expect(first.completed() && retry.completed()).toBe(true);
  });

  it('is abandoned only when its last subscriber leaves before the end', () => {
    const abandon = vi.fn();
    const shared = new SharedGeneration(abandon);
    const first = follow(shared);
    const retry = follow(shared);
    first.subscription.unsubscribe();
    expect(abandon).not.toHaveBeenCalled();
    retry.subscription.unsubscribe();
    expect(abandon).toHaveBeenCalledOnce();
  });

  it('is not abandoned by the teardowns that follow its end', () => {
    const abandon = vi.fn();
    const shared = new SharedGeneration(abandon);
    follow(shared);
    shared.finish(done);
    expect(abandon).not.toHaveBeenCalled();
  });
});
