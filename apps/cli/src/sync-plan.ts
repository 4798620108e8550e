import { posix } from 'node:path';
import { type ManifestEntry, SYNC_KEPT_FOLDER } from '@weft/contracts';

/** What a sync sends and removes to make a workspace hold what a folder holds. */
export interface SyncPlan {
  /** Files and links that are new or differ, and folders the workspace lacks, to send. */
  readonly send: readonly string[];
  /** Paths the folder no longer has; a gone folder is one path. */
  readonly delete: readonly string[];
  /** Files and links sent where the workspace had something else. */
  readonly changed: number;
  /** Files and links sent that the workspace did not have. */
  readonly added: number;
  /** Files and links removed, those in removed folders included. */
  readonly removed: number;
  readonly unchanged: number;
}

/**
 * The folder is the source of truth: whatever differs in the workspace is sent again, whatever
 * the folder lacks is removed, except in `.weft/`, where the workspace keeps what it has.
 * Entries in `local` and `remote` are what the folder and the workspace hold (neither lists .git
 * or node_modules).
 */
export function planSync(local: readonly ManifestEntry[], remote: readonly ManifestEntry[]): SyncPlan {
  const there = new Map(remote.map((e) => [e.path, e]));
  const here = new Map(local.map((e) => [e.path, e]));
  const send: string[] = [];
  let changed = 0;
  let added = 0;
  let unchanged = 0;
  for (const entry of local) {
    const theirs = there.get(entry.path);
    if (entry.type === 'directory') {
      if (theirs?.type !== 'directory') send.push(entry.path);
      continue;
    }
    if (entry.type === 'other') continue; // never uploaded
    if (theirs && same(entry, theirs)) {
      unchanged++;
      continue;
    }
    send.push(entry.path);
    if (theirs) changed++;
    else added++;
  }
  const deleted: string[] = [];
  let removed = 0;
  for (const entry of remote) {
    if (here.has(entry.path) || kept(entry.path)) continue;
    const parent = posix.dirname(entry.path);
    // Inside a removed folder, or under something the folder has as a file (sending it replaces the lot).
    if (parent !== '.' && here.get(parent)?.type !== 'directory') continue;
    deleted.push(entry.path);
  }
  const gone = new Set(deleted);
  for (const entry of remote) {
    if (entry.type !== 'directory' && selfOrAncestors(entry.path).some((p) => gone.has(p))) removed++;
  }
  return { send: send.sort(), delete: deleted.sort(), changed, added, removed, unchanged };
}

function same(a: ManifestEntry, b: ManifestEntry): boolean {
  if (a.type === 'file' && b.type === 'file') return a.sha256 === b.sha256 && a.size === b.size && a.executable === b.executable;
  if (a.type === 'symlink' && b.type === 'symlink') return a.target === b.target;
  return false;
}

function selfOrAncestors(path: string): string[] {
  const names = path.split('/');
  return names.map((_, i) => names.slice(0, i + 1).join('/'));
}

function kept(path: string): boolean {
  return path === SYNC_KEPT_FOLDER || path.startsWith(`${SYNC_KEPT_FOLDER}/`);
}
