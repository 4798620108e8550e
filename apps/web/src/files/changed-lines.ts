import { parsePatch } from 'diff';

/**
 * The lines of `path` (1-based, in its current text) that the workspace's patch adds or changes:
 * what the viewer marks. Empty for a file the patch does not touch; every line of a new file.
 */
export function changedLines(patch: string, path: string): Set<number> {
  const lines = new Set<number>();
  if (patch.trim() === '') return lines;
  const file = parsePatch(patch).find((p) => stripPrefix(p.newFileName) === path);
  for (const hunk of file?.hunks ?? []) {
    let line = hunk.newStart;
    for (const text of hunk.lines) {
      if (text.startsWith('+')) lines.add(line++);
      else if (text.startsWith(' ')) line++;
      // '-' lines are gone from the new text; '\' marks a missing newline.
    }
  }
  return lines;
}

/** git's `b/src/a.ts`; `/dev/null` for a deleted file. */
function stripPrefix(name: string | undefined): string | undefined {
  return name?.replace(/^b\//, '');
}
