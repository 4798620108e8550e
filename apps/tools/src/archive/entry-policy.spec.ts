import { describe, expect, it } from 'vitest';
import { EntryRejected, checkEntries, checkEntry } from './entry-policy';

const limits = { maxBytes: 100, maxEntries: 5 };

describe('archive entry policy', () => {
  it.each([
    ['C:/Windows/evil', 'File', undefined],
    ['\\\\server\\share', 'File', undefined],
    ['a/..\\..\\evil', 'File', undefined],
    ['nul\0byte', 'File', undefined],
    ['link', 'SymbolicLink', ''],
    ['sub/link', 'SymbolicLink', '../../x'],
    ['h', 'Link', 'dir/../../x'],
  ])('rejects %s (%s -> %s)', (path, type, linkpath) => {
    expect(() => checkEntry({ path, type, linkpath, size: 0 })).toThrow(EntryRejected);
  });

  it.each([
    ['./src/', 'Directory', undefined],
    ['node_modules/.bin/x', 'SymbolicLink', '../pkg/bin/x'],
    ['link-to-root', 'SymbolicLink', '.'],
    ['h', 'Link', 'src/a.txt'],
  ])('accepts %s (%s -> %s)', (path, type, linkpath) => {
    expect(() => checkEntry({ path, type, linkpath, size: 0 })).not.toThrow();
  });

  it('counts files and bytes, hard links as files without bytes', () => {
    expect(
      checkEntries(
        [
          { path: 'd/', type: 'Directory', size: 0 },
          { path: 'd/a', type: 'File', size: 40 },
          { path: 'h', type: 'Link', linkpath: 'd/a', size: 0 },
        ],
        limits,
      ),
    ).toEqual({ files: 2, bytes: 40 });
  });

  it('names the entry that crosses the size limit', () => {
    const entries = [
      { path: 'a', type: 'File', size: 60 },
      { path: 'b', type: 'File', size: 60 },
    ];
    expect(() => checkEntries(entries, limits)).toThrow(/entry 'b'/);
  });
});
