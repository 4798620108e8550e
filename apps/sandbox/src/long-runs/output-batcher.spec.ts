import { RUN_OUTPUT_CHUNK_MAX_CHARS } from '@weft/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OutputBatcher } from './output-batcher';

function setup(maxBytesPerStream = 1_000_000) {
  const sent: Array<[string, string]> = [];
  const batcher = new OutputBatcher({ maxBytesPerStream, send: (stream, text) => sent.push([stream, text]), flushMs: 50 });
  return { sent, batcher };
}

describe('OutputBatcher', () => {
  afterEach(() => vi.useRealTimers());

  it('batches small writes and sends them when the flush interval passes', () => {
    vi.useFakeTimers();
    const { sent, batcher } = setup();
    batcher.push('stdout', Buffer.from('a'));
    batcher.push('stdout', Buffer.from('b'));
    batcher.push('stderr', Buffer.from('oops'));
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(50);
    expect(sent).toEqual([
      ['stdout', 'ab'],
      ['stderr', 'oops'],
    ]);
  });

  it('splits big output into chunks no larger than the contract allows', () => {
    const { sent, batcher } = setup();
    batcher.push('stdout', Buffer.alloc(RUN_OUTPUT_CHUNK_MAX_CHARS * 2 + 5, 'x'));
    batcher.end();
    expect(sent.map(([, text]) => text.length)).toEqual([RUN_OUTPUT_CHUNK_MAX_CHARS, RUN_OUTPUT_CHUNK_MAX_CHARS, 5]);
  });

  it('never cuts a UTF-8 character between two writes', () => {
    const { sent, batcher } = setup();
    const euro = Buffer.from('€');
    batcher.push('stdout', euro.subarray(0, 1));
    batcher.push('stdout', euro.subarray(1));
    batcher.end();
    expect(sent).toEqual([['stdout', '€']]);
  });

  it('stops streaming a stream past its byte cap, each stream on its own', () => {
    const { sent, batcher } = setup(4);
    batcher.push('stdout', Buffer.from('123456'));
    batcher.push('stdout', Buffer.from('789'));
    batcher.push('stderr', Buffer.from('ab'));
    batcher.end();
    expect(sent).toEqual([
      ['stdout', '1234'],
      ['stderr', 'ab'],
    ]);
  });
});
