import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from './errors';
import { formatBytes } from './format-bytes';
import type { ProjectFiles, ProjectSelection } from './project-files';

/** Left-out paths named in the upload's line; the rest are counted. */
const SHOWN_LEFT_OUT = 4;
/** Largest top-level entries named when an upload is too large. */
const SHOWN_LARGEST = 5;

/** `12 files, 48 KiB (9 KiB packed); left out by git's ignore rules: .venv/, target/ and 3 more`. */
export function uploadLine(files: ProjectFiles, selection: ProjectSelection, bytes: number, packedBytes: number): string {
  const count = selection.entries.filter((entry) => entry.type !== 'directory').length;
  const what = `${count} file${count === 1 ? '' : 's'}, ${formatBytes(bytes)} (${formatBytes(packedBytes)} packed)`;
  if (selection.leftOut.length === 0) return what;
  const shown = selection.leftOut.slice(0, SHOWN_LEFT_OUT).join(', ');
  const more = selection.leftOut.length > SHOWN_LEFT_OUT ? ` and ${selection.leftOut.length - SHOWN_LEFT_OUT} more` : '';
  return `${what}; left out by ${files.usesGit ? "git's ignore rules" : '.gitignore'} and .weftignore: ${shown}${more}`;
}

/** The bytes of each file of the selection, and their sum. */
export async function selectionSizes(dir: string, selection: ProjectSelection): Promise<{ total: number; byPath: Map<string, number> }> {
  const byPath = new Map<string, number>();
  let total = 0;
  for (const entry of selection.entries) {
    if (entry.type !== 'file') continue;
    const size = (await lstat(join(dir, entry.path))).size;
    byPath.set(entry.path, size);
    total += size;
  }
  return { total, byPath };
}

/** Refuses an archive over the gateway's limit, naming what takes the room and how to leave it out. */
export function tooLargeError(dir: string, packedBytes: number, maxBytes: number, byPath: Map<string, number>): UsageError {
  const byTop = new Map<string, number>();
  for (const [path, size] of byPath) {
    const [top = path, ...rest] = path.split('/');
    const key = rest.length > 0 ? `${top}/` : top;
    byTop.set(key, (byTop.get(key) ?? 0) + size);
  }
  const largest = [...byTop].sort((a, b) => b[1] - a[1]).slice(0, SHOWN_LARGEST).map(([path, size]) => `${path} ${formatBytes(size)}`);
  return new UsageError(
    `${dir} packs to ${formatBytes(packedBytes)}, more than this gateway accepts in one upload (${formatBytes(maxBytes)}). ` +
      `The largest: ${largest.join(', ')}. Leave out what is not the project in .gitignore or .weftignore (same syntax); nothing was uploaded`,
  );
}
