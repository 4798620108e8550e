import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, type FileToolName } from '@weft/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ToolHarness, createToolHarness } from '../testing/tool-harness';
import { makeFolder, removeInside } from '../workspace/safe-fs';

/** Every tool, with the path in the place where that tool takes one. */
const uses: Array<[string, FileToolName, (path: string) => Record<string, unknown>]> = [
  ['read_file', 'read_file', (path) => ({ path })],
  ['write_file', 'write_file', (path) => ({ path, content: 'x' })],
  ['edit_file', 'edit_file', (path) => ({ path, edits: [{ old: 'a', new: 'b' }] })],
  ['list_directory', 'list_directory', (path) => ({ path, recursive: true })],
  ['search_files', 'search_files', (path) => ({ pattern: 'x', path })],
  ['glob', 'glob', (path) => ({ pattern: '**', path })],
  ['create_directory', 'create_directory', (path) => ({ path })],
  ['move_file from', 'move_file', (path) => ({ from: path, to: 'moved.txt' })],
  ['move_file to', 'move_file', (path) => ({ from: 'mine.txt', to: path })],
  ['delete_file', 'delete_file', (path) => ({ path })],
];

const LONG_NAME = 'n'.repeat(300);

describe('paths the filesystem cannot hold, against every file tool', () => {
  let h: ToolHarness;

  beforeEach(async () => {
    h = await createToolHarness();
    await h.files({ 'mine.txt': 'mine' });
  });
  afterEach(() => h.cleanup());

  it.each(uses)('%s answers TOOLS.INVALID_PATH naming the long name, and creates nothing', async (_name, tool, argsFor) => {
    const result = await h.call(tool, argsFor(`new/folder/${LONG_NAME}`));
    expect(result).toMatchObject({ isError: true, errorCode: ErrorCode.InvalidPath });
    expect(result.output).toContain(`the name '${'n'.repeat(60)}… (300 characters)' is 300 bytes long`);
    expect(result.output).toContain('at most 255 bytes');
    expect(result.output.length).toBeLessThan(600);
    expect(existsSync(join(h.root, 'new'))).toBe(false);
    expect(existsSync(join(h.root, 'mine.txt'))).toBe(true);
  });

  it.each(uses)('%s answers TOOLS.INVALID_PATH for a NUL byte', async (_name, tool, argsFor) => {
    const result = await h.call(tool, argsFor('mine.txt\0.png'));
    expect(result).toMatchObject({ isError: true, errorCode: ErrorCode.InvalidPath });
    expect(result.output).toContain("'mine.txt\\0.png' cannot be used as a path: it contains a NUL byte");
  });

  it('answers a path that only the workspace root makes too long with a typed error, not a crash', async () => {
    // 16 names of 253 bytes: 4063 bytes, fine as a relative path, past PATH_MAX once under the root.
    const deep = Array.from({ length: 16 }, (_, i) => String(i).padStart(253, 'd')).join('/');
    await makeFolder(h.root, join(h.root, deep));
    try {
      for (const [tool, args] of [
        ['read_file', { path: `${deep}/x.txt` }],
        ['write_file', { path: `${deep}/more/x.txt`, content: 'x' }],
        ['list_directory', { path: deep }],
      ] as const) {
        const result = await h.call(tool, args);
        expect(result, tool).toMatchObject({ isError: true, errorCode: ErrorCode.InvalidPath });
        expect(result.output, tool).toContain('is too long for the filesystem');
        expect(result.output, tool).not.toContain(h.base);
      }
    } finally {
      // rm -r by absolute path fails on a tree this deep; through pinned descriptors it does not.
      await removeInside(h.root, join(h.root, deep.split('/')[0] ?? ''), true);
    }
  });
});
