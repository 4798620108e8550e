import { PassThrough } from 'node:stream';
import { createInterface } from 'node:readline/promises';
import { describe, expect, it } from 'vitest';
import { LineReader } from './line-reader';

describe('LineReader', () => {
  it('gives a line that arrives after an abandoned read to the next read', async () => {
    const input = new PassThrough();
    const reader = new LineReader(createInterface({ input })[Symbol.asyncIterator]());
    const question = new AbortController();
    const abandoned = reader.next(question.signal);
    question.abort(new Error('turn cancelled'));
    await expect(abandoned).rejects.toThrow('turn cancelled');

    input.write('first\nsecond\n');
    expect(await reader.next()).toBe('first');
    expect(await reader.next()).toBe('second');
    input.end();
    expect(await reader.next()).toBeUndefined();
  });
});
