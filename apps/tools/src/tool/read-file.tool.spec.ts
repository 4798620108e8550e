import { ErrorCode } from '@weft/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ToolHarness, createToolHarness } from '../testing/tool-harness';

describe('read_file', () => {
  let h: ToolHarness;
  const tenLines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

  beforeEach(async () => {
    h = await createToolHarness();
    await h.files({ 'ten.txt': tenLines, 'empty.txt': '' });
  });
  afterEach(() => h.cleanup());

  it('numbers every line of a whole file', async () => {
    const { output } = await h.call('read_file', { path: 'ten.txt' });
    expect(output.split('\n')[0]).toBe(' 1\tline 1');
    expect(output.split('\n')[9]).toBe('10\tline 10');
    expect(output).not.toContain('lines 1-');
  });

  it('reads a line range and says where to read on', async () => {
    expect((await h.call('read_file', { path: 'ten.txt', offset: 3, limit: 2 })).output).toBe(
      '3\tline 3\n4\tline 4\n(lines 3-4 of 10; read on with offset 5)',
    );
    expect((await h.call('read_file', { path: 'ten.txt', offset: 9 })).output).toBe(' 9\tline 9\n10\tline 10\n(lines 9-10 of 10)');
  });

  it('refuses an offset past the end, naming the length', async () => {
    const result = await h.call('read_file', { path: 'ten.txt', offset: 11 });
    expect(result).toMatchObject({ isError: true, errorCode: ErrorCode.ValidationFailed });
    expect(result.output).toContain('10 lines');
  });

  it('says an empty file is empty', async () => {
    expect((await h.call('read_file', { path: 'empty.txt' })).output).toBe('(empty file)');
  });

  it('reads part of a file too large to read whole, and suggests a range when it is', async () => {
    await h.files({ 'big.txt': 'x'.repeat(100) + '\n' + 'tail\n'.repeat(300) });
    const whole = await h.call('read_file', { path: 'big.txt' });
    expect(whole).toMatchObject({ isError: true, errorCode: ErrorCode.FileTooLarge });
    expect(whole.output).toContain('offset and limit');
    expect((await h.call('read_file', { path: 'big.txt', offset: 301, limit: 1 })).output).toBe('301\ttail\n(lines 301-301 of 301)');
  });

  it('rejects a zero or negative offset as bad arguments', async () => {
    expect(await h.call('read_file', { path: 'ten.txt', offset: 0 })).toMatchObject({ isError: true, errorCode: ErrorCode.ValidationFailed });
  });
});
