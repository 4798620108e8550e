import { posix } from 'node:path';
import { GitignoreRules } from './gitignore';
import { relativeName } from './path-containment';
import { type DirectoryEntry, listEntries } from './safe-fs';

export interface WalkOptions {
  recursive: boolean;
  /** Also walk what .gitignore excludes, `.git` and `node_modules`. */
  includeIgnored: boolean;
  maxEntries: number;
}

export interface WalkedEntry extends DirectoryEntry {
  /** Relative to the workspace root. */
  path: string;
}

export interface WalkResult {
  entries: WalkedEntry[];
  /** Entries left out because they are ignored. */
  hidden: number;
  /** The walk stopped at maxEntries. */
  truncated: boolean;
}

/**
 * Walks a folder depth-first in name order (a folder, then what it holds), never into a symbolic
 * link. Each folder is opened through `listEntries`, which refuses one swapped for a link out of
 * the workspace mid-walk.
 */
export async function walkTree(root: string, startReal: string, options: WalkOptions): Promise<WalkResult> {
  const start = relativeName(root, startReal);
  const folder = start === '.' ? '' : start;
  const result: WalkResult = { entries: [], hidden: 0, truncated: false };
  const rules = options.includeIgnored ? GitignoreRules.empty() : await GitignoreRules.forFolder(root, folder);
  await walkFolder(root, folder, rules, options, result);
  return result;
}

async function walkFolder(root: string, folder: string, rules: GitignoreRules, options: WalkOptions, result: WalkResult) {
  for (const entry of await listEntries(root, folder === '' ? root : posix.join(root, folder))) {
    if (result.truncated) return;
    const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
    const isDirectory = entry.type === 'directory';
    if (!options.includeIgnored && rules.ignores(path, isDirectory)) {
      result.hidden++;
      continue;
    }
    if (result.entries.length >= options.maxEntries) {
      result.truncated = true;
      return;
    }
    result.entries.push({ ...entry, path });
    if (isDirectory && options.recursive) {
      const inner = options.includeIgnored ? rules : await rules.enter(root, path);
      await walkFolder(root, path, inner, options, result);
    }
  }
}
