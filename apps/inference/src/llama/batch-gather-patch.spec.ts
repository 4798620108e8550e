import { describe, expect, it } from 'vitest';
import { patchBatchGathering } from './batch-gather-patch';

interface Queued {
  sequenceId: number;
  afterBatchAction?: (length: number) => Promise<void> | void;
}

/** The part of node-llama-cpp's LlamaContext the patch touches: its decode queue. */
class FakeContext {
  _queuedDecodes: Queued[] = [];
  _queuedDecodeSequenceIds = new Set<number>();
  _decodeTokens(decode: Queued) {
    this._queuedDecodes.push(decode);
    this._queuedDecodeSequenceIds.add(decode.sequenceId);
    return Promise.resolve();
  }
  /** What node-llama-cpp does before it runs a batch's after-actions: the batch leaves the queue. */
  takeBatch(): Queued[] {
    const batch = this._queuedDecodes;
    this._queuedDecodes = [];
    this._queuedDecodeSequenceIds.clear();
    return batch;
  }
}

function patchedContext(): FakeContext {
  class LlamaContext extends FakeContext {}
  expect(patchBatchGathering({ LlamaContext } as unknown as Parameters<typeof patchBatchGathering>[0])).toBe(true);
  return new LlamaContext();
}

describe('patchBatchGathering', () => {
  it('changes nothing and says so when this node-llama-cpp lacks the method it wraps', () => {
    class LlamaContext {}
    const lib = { LlamaContext } as unknown as Parameters<typeof patchBatchGathering>[0];
    expect(patchBatchGathering(lib)).toBe(false);
    expect(Object.getOwnPropertyNames(LlamaContext.prototype)).toEqual(['constructor']);
  });

  it('keeps the decode queue sorted by sequence id, whatever order the sequences queue in', async () => {
    const context = patchedContext();
    for (const sequenceId of [7, 6, 2, 5, 4]) await context._decodeTokens({ sequenceId });
    expect(context._queuedDecodes.map((decode) => decode.sequenceId)).toEqual([2, 4, 5, 6, 7]);
  });

  it('holds the next batch until each sequence of this one has queued again, after its own action', async () => {
    const context = patchedContext();
    const order: string[] = [];
    await context._decodeTokens({ sequenceId: 0, afterBatchAction: () => void order.push('own action') });
    await context._decodeTokens({ sequenceId: 1 });
    const [first, second] = context.takeBatch();
    setImmediate(() => order.push('next turn'));
    // node-llama-cpp awaits the batch's after-actions one after another.
    const batchDone = (async () => {
      await first?.afterBatchAction?.(1);
      await second?.afterBatchAction?.(1);
      order.push('batch done');
    })();
    for (let i = 0; i < 5; i++) await Promise.resolve();
    order.push('queued again');
    await context._decodeTokens({ sequenceId: 0 });
    await context._decodeTokens({ sequenceId: 1 });
    await batchDone;
    // Released by the sequences queuing again, within the turn: before any other immediate.
    expect(order).toEqual(['own action', 'queued again', 'batch done']);
  });

  it('waits one event-loop turn at most, shared by the batch, for sequences that queue nothing', async () => {
    const context = patchedContext();
    const order: string[] = [];
    await context._decodeTokens({ sequenceId: 0 });
    await context._decodeTokens({ sequenceId: 1 });
    const [first, second] = context.takeBatch();
    await first?.afterBatchAction?.(1);
    order.push('first done');
    setImmediate(() => order.push('next turn'));
    await second?.afterBatchAction?.(1);
    order.push('batch done');
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['first done', 'batch done', 'next turn']);
  });
});
