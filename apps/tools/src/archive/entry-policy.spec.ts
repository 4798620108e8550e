import { describe, expect, it } from 'vitest';
import { EntryRejected, MAX_ENTRY_DEPTH, checkEntries, checkEntry, entryCrossing } from './entry-policy';

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

  it.each([
    ['a', 'SymbolicLink', 'a/b'],
    ['d/x', 'SymbolicLink', 'd'],
    ['A', 'SymbolicLink', './a/b'],
    ['\u00e9', 'SymbolicLink', 'e\u0301/b'],
    ['h', 'Link', 'h/x'],
    ['f', 'File', 'f/x'],
    ['f', 'Directory', '/f/x'],
    ['f', 'File', 'C:f/x'],
  ])('rejects %s (%s -> %s), an entry whose path and link target lie one inside the other, on which node-tar waits forever', (path, type, linkpath) => {
    expect(() => checkEntry({ path, type, linkpath, size: 0 })).toThrow(/that lies inside its own path or holds it/);
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

  it('refuses a name over 255 bytes, naming the entry shortened rather than echoing it whole', () => {
    const path = `src/${'n'.repeat(10_000)}.ts`;
    const refusal = () => checkEntry({ path, type: 'File', size: 0 });
    expect(refusal).toThrow(EntryRejected);
    expect(refusal).toThrow(/^entry 'src\/n{196}… \(10007 characters\)' has a path the filesystem cannot hold: the name 'n{60}…/);
    try {
      refusal();
    } catch (error) {
      expect((error as Error).message.length).toBeLessThan(600);
    }
  });

  it('refuses a link target the filesystem cannot hold, and an entry nested past tar\'s depth limit', () => {
    expect(() => checkEntry({ path: 'l', type: 'SymbolicLink', linkpath: 'x'.repeat(300), size: 0 })).toThrow(
      /entry 'l' has a link target the filesystem cannot hold/,
    );
    const deep = Array.from({ length: MAX_ENTRY_DEPTH + 1 }, () => 'd').join('/');
    expect(() => checkEntry({ path: deep, type: 'File', size: 0 })).toThrow(/nested deeper than 1024 folders/);
  });

  it('escapes control characters in the entry it names', () => {
    expect(() => checkEntry({ path: 'a\nb/../../x', type: 'File', size: 0 })).toThrow(/^entry 'a\\nb\/\.\.\/\.\.\/x'/);
  });

  it('finds the file that takes the running total past a quota', () => {
    const entries = [
      { path: 'a', type: 'File', size: 40 },
      { path: 'd/', type: 'Directory', size: 0 },
      { path: 'b', type: 'File', size: 40 },
    ];
    expect(entryCrossing(entries, 50)?.path).toBe('b');
    expect(entryCrossing(entries, 80)).toBeUndefined();
  });
});
