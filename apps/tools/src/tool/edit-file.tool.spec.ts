import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode } from '@weft/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ToolHarness, createToolHarness } from '../testing/tool-harness';

const source = 'export function add(a, b) {\n  return a + b;\n}\n\nexport function sub(a, b) {\n  return a - b;\n}\n';

describe('edit_file', () => {
  let h: ToolHarness;
  const content = () => readFile(join(h.root, 'math.js'), 'utf8');

  beforeEach(async () => {
    h = await createToolHarness();
    await h.files({ 'math.js': source });
  });
  afterEach(() => h.cleanup());

  it('applies replacements in order and returns a unified diff', async () => {
    const result = await h.call('edit_file', {
      path: 'math.js',
      edits: [
        { old: 'return a + b;', new: 'return a + b + 0;' },
        { old: 'function sub', new: 'function subtract' },
      ],
    });
    expect(result.isError).toBe(false);
    expect(result.output).toContain('--- a/math.js\n+++ b/math.js\n@@ -1,7 +1,7 @@');
    expect(result.output).toContain('-  return a + b;\n+  return a + b + 0;');
    expect(result.output).toContain('+export function subtract(a, b) {');
    expect(await content()).toBe(source.replace('a + b;', 'a + b + 0;').replace('function sub', 'function subtract'));
  });

  it('fails naming the edit whose text is missing, and writes nothing', async () => {
    const result = await h.call('edit_file', {
      path: 'math.js',
      edits: [
        { old: 'return a + b;', new: 'return b + a;' },
        { old: 'return a * b;', new: 'x' },
      ],
    });
    expect(result).toMatchObject({ isError: true, errorCode: ErrorCode.ValidationFailed });
    expect(result.output).toMatch(/^edit 2 of 2: "old" text was not found in 'math.js'/);
    expect(await content()).toBe(source);
  });

  it('fails naming how often an ambiguous text occurs', async () => {
    const result = await h.call('edit_file', { path: 'math.js', edits: [{ old: 'export function', new: 'function' }] });
    expect(result.output).toMatch(/^the edit: "old" text occurs 2 times in 'math.js'/);
    expect(await content()).toBe(source);
  });

  it('counts overlapping occurrences as ambiguous', async () => {
    await h.files({ 'a.txt': 'aaa' });
    expect((await h.call('edit_file', { path: 'a.txt', edits: [{ old: 'aa', new: 'b' }] })).output).toContain('occurs 2 times');
  });

  it('refuses a missing file, a binary file and an empty edit list', async () => {
    await h.files({ 'bin.dat': 'a\0b' });
    expect(await h.call('edit_file', { path: 'nope.js', edits: [{ old: 'a', new: 'b' }] })).toMatchObject({ errorCode: ErrorCode.FileNotFound });
    expect(await h.call('edit_file', { path: 'bin.dat', edits: [{ old: 'a', new: 'b' }] })).toMatchObject({ errorCode: ErrorCode.BinaryFile });
    expect(await h.call('edit_file', { path: 'math.js', edits: [] })).toMatchObject({ errorCode: ErrorCode.ValidationFailed });
  });

  it('keeps the rest of the file byte for byte, CRLF and no final newline included', async () => {
    await h.files({ 'crlf.txt': 'one\r\ntwo\r\nthree' });
    await h.call('edit_file', { path: 'crlf.txt', edits: [{ old: 'two', new: '2' }] });
    expect(await readFile(join(h.root, 'crlf.txt'), 'utf8')).toBe('one\r\n2\r\nthree');
  });
});
