import { parsePatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { previewEdit } from './edit-preview';

const FILE = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('the preview of an edit_file call', () => {
  it('numbers the change by its place in the file, with three lines of context either side', () => {
    const diff = previewEdit('src/a.txt', FILE, [{ old: 'line 6\nline 7\nline 8\n', new: 'six\nseven\neight\n' }]);
    const [file] = parsePatch(diff ?? '');
    expect(file?.hunks).toHaveLength(1);
    const hunk = file!.hunks[0]!;
    expect([hunk.oldStart, hunk.oldLines, hunk.newStart, hunk.newLines]).toEqual([3, 9, 3, 9]);
    expect(hunk.lines.filter((l) => l.startsWith('-'))).toEqual(['-line 6', '-line 7', '-line 8']);
    expect(hunk.lines.slice(0, 3)).toEqual([' line 3', ' line 4', ' line 5']);
    expect(hunk.lines.slice(-3)).toEqual([' line 9', ' line 10', ' line 11']);
    expect(diff).toMatch(/^diff --git a\/src\/a\.txt b\/src\/a\.txt\n--- a\/src\/a\.txt\n\+\+\+ b\/src\/a\.txt\n@@ -3,9 \+3,9 @@/);
  });

  it('applies several edits in order, as the tools worker does', () => {
    const diff = previewEdit('a.txt', FILE, [
      { old: 'line 2\n', new: 'two\n' },
      { old: 'line 11\n', new: 'eleven\n' },
    ]);
    expect(parsePatch(diff ?? '')[0]?.hunks.map((h) => h.newStart)).toEqual([1, 8]);
  });

  it('gives none when an edit does not match exactly once, since the call would fail', () => {
    expect(previewEdit('a.txt', FILE, [{ old: 'line 99', new: 'x' }])).toBeNull();
    expect(previewEdit('a.txt', FILE, [{ old: 'line 1', new: 'x' }])).toBeNull(); // also in line 10, 11, 12
  });
});
