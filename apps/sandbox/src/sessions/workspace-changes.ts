import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorkspaceChanges } from '@weft/contracts';

/** Folders of installed dependencies and caches: reported as one entry each, not file by file. */
export const DEPENDENCY_FOLDERS: ReadonlySet<string> = new Set([
  'node_modules',
  '.venv',
  'venv',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.ruff_cache',
  '.tox',
  '.git',
  'target',
  '.gradle',
  '.next',
]);
/** Paths listed per kind (created, modified, deleted) before the list says it was cut. */
export const MAX_LISTED_PATHS = 200;
/** A workspace with more entries than this is compared only that far. */
const MAX_WALKED_ENTRIES = 200_000;

interface Entry {
  size: number;
  mtimeMs: number;
  ino: number;
  kind: 'file' | 'dir' | 'link' | 'other';
}

/** What a workspace holds at one moment: every path with its size, time and inode. */
export interface WorkspaceSnapshot {
  entries: Map<string, Entry>;
  bytes: number;
}

/**
 * Walks the workspace on this process's view of the volume, never following links (a run may
 * have planted one pointing anywhere).
 */
export async function snapshotWorkspace(root: string): Promise<WorkspaceSnapshot> {
  const entries = new Map<string, Entry>();
  let bytes = 0;
  const pending: string[] = [''];
  while (pending.length > 0 && entries.size < MAX_WALKED_ENTRIES) {
    const rel = pending.pop() as string;
    let children: Dirent[];
    try {
      children = await readdir(join(root, rel), { withFileTypes: true });
    } catch {
      continue; // removed while we walked, or unreadable: nothing to compare
    }
    const stats = await Promise.all(
      children.map(async (child) => {
        const path = rel === '' ? child.name : `${rel}/${child.name}`;
        return { path, stat: await lstat(join(root, path)).catch(() => undefined) };
      }),
    );
    for (const { path, stat } of stats) {
      if (!stat) continue;
      const kind = stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : stat.isSymbolicLink() ? 'link' : 'other';
      entries.set(path, { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, kind });
      if (kind === 'dir') pending.push(path);
      else bytes += stat.size;
    }
  }
  return { entries, bytes };
}

/** The paths a run created, changed or deleted, dependency folders summarised. */
export function compareSnapshots(before: WorkspaceSnapshot, after: WorkspaceSnapshot): WorkspaceChanges {
  const created: string[] = [];
  const modified: string[] = [];
  const deleted: string[] = [];
  const folders = new Map<string, number>();
  const note = (list: string[], path: string, kind: Entry['kind']) => {
    const folder = dependencyFolder(path);
    if (folder !== undefined) {
      if (kind !== 'dir') folders.set(folder, (folders.get(folder) ?? 0) + 1);
      else if (folder === path) folders.set(folder, folders.get(folder) ?? 0);
      return;
    }
    if (kind !== 'dir') list.push(path);
  };
  for (const [path, now] of after.entries) {
    const old = before.entries.get(path);
    if (!old) note(created, path, now.kind);
    else if (old.kind !== now.kind || old.size !== now.size || old.mtimeMs !== now.mtimeMs || old.ino !== now.ino) {
      note(modified, path, now.kind);
    }
  }
  for (const [path, old] of before.entries) if (!after.entries.has(path)) note(deleted, path, old.kind);
  const truncated = [created, modified, deleted].some((list) => list.length > MAX_LISTED_PATHS);
  return {
    created: created.sort().slice(0, MAX_LISTED_PATHS),
    modified: modified.sort().slice(0, MAX_LISTED_PATHS),
    deleted: deleted.sort().slice(0, MAX_LISTED_PATHS),
    folders: [...folders].sort(([a], [b]) => a.localeCompare(b)).map(([path, files]) => ({ path, files })),
    truncated,
    bytes: after.bytes,
  };
}

/** The outermost dependency folder a path lies in (or is), if any. */
function dependencyFolder(path: string): string | undefined {
  const parts = path.split('/');
  const index = parts.findIndex((part) => DEPENDENCY_FOLDERS.has(part));
  return index < 0 ? undefined : parts.slice(0, index + 1).join('/');
}
