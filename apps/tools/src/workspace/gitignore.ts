import { posix } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { AppError } from '@weft/contracts';
import { resolveInside } from './path-containment';
import { openForRead } from './safe-fs';

/** A .gitignore larger than this is not a .gitignore anyone wrote by hand: it is skipped. */
export const GITIGNORE_MAX_BYTES = 256 * 1024;

/** Always skipped unless the caller asks for everything. */
export const ALWAYS_SKIPPED = new Set(['.git', 'node_modules']);

interface Scope {
  /** Folder of the .gitignore, relative to the workspace root ('' for the root). */
  base: string;
  rules: Ignore;
}

/**
 * The .gitignore files that apply to a place, git's way: each file's patterns are relative to
 * its own folder, and deeper files add to those above them.
 */
export class GitignoreRules {
  private constructor(private readonly scopes: readonly Scope[]) {}

  static empty(): GitignoreRules {
    return new GitignoreRules([]);
  }

  /** Rules for `folder` (relative to the root): every .gitignore from the root down to it. */
  static async forFolder(root: string, folder: string): Promise<GitignoreRules> {
    let rules = GitignoreRules.empty();
    const parts = folder === '.' || folder === '' ? [] : folder.split('/');
    for (let i = 0; i <= parts.length; i++) rules = await rules.enter(root, parts.slice(0, i).join('/'));
    return rules;
  }

  /** The rules inside `folder`: these plus the folder's own .gitignore, if it has one. */
  async enter(root: string, folder: string): Promise<GitignoreRules> {
    const content = await readGitignore(root, folder);
    if (content === null) return this;
    return new GitignoreRules([...this.scopes, { base: folder, rules: ignore().add(content) }]);
  }

  /** `path` is relative to the workspace root. */
  ignores(path: string, isDirectory: boolean): boolean {
    if (ALWAYS_SKIPPED.has(posix.basename(path))) return true;
    return this.scopes.some(({ base, rules }) => {
      const relative = base === '' ? path : path.startsWith(`${base}/`) ? path.slice(base.length + 1) : null;
      return relative !== null && relative !== '' && rules.ignores(isDirectory ? `${relative}/` : relative);
    });
  }
}

/** Through containment like any read: a .gitignore that is a link out of the workspace is not read. */
async function readGitignore(root: string, folder: string): Promise<string | null> {
  try {
    const target = await resolveInside(root, posix.join(folder || '.', '.gitignore'));
    if (!target.exists) return null;
    const handle = await openForRead(root, target.real);
    try {
      const stats = await handle.stat();
      if (!stats.isFile() || stats.size > GITIGNORE_MAX_BYTES) return null;
      return (await handle.readFile()).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    // An unreadable or escaping .gitignore only means fewer names are hidden.
    if (error instanceof AppError) return null;
    throw error;
  }
}
