import { readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { openForRead } from '../workspace/safe-fs';
import { type WalkedEntry, walkTree } from '../workspace/tree-walker';
import { type FileSide, fileDiff } from './file-diff';

export interface PatchLimits {
  /** A changed file larger than this is named in the patch's preamble instead of diffed. */
  maxFileBytes: number;
  /** The whole patch travels in one NATS message. */
  maxPatchBytes: number;
  maxEntries: number;
}

export interface ExportedPatch {
  patch: string;
  files: number;
  omitted: string[];
}

/** The patch would be larger than the limit; the message says how to get the work out instead. */
export class PatchTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the patch is larger than ${maxBytes} bytes; export the workspace as a tar.gz instead`);
    this.name = 'PatchTooLarge';
  }
}

type Tree = Map<string, WalkedEntry>;

/**
 * A git-style patch from `pristine` (the snapshot taken at import) to `root` (the workspace
 * now), for `git apply` or `patch -p1` in a checkout of the original. Paths that were in the
 * original are always compared, like tracked files; new paths are added unless .gitignore
 * ignores them (or they are under .git or node_modules), like `git add -A`.
 */
export async function exportPatch(pristine: string, root: string, limits: PatchLimits): Promise<ExportedPatch> {
  const before = await filesOf(pristine, true, limits);
  const everything = await filesOf(root, true, limits);
  const visible = await filesOf(root, false, limits);
  const paths = new Set([...before.keys(), ...visible.keys()]);
  const sections: string[] = [];
  const omitted: string[] = [];
  let size = 0;
  for (const path of [...paths].sort()) {
    const old = before.get(path);
    const now = before.has(path) ? everything.get(path) : visible.get(path);
    if (!(await differs(pristine, old, root, now))) continue;
    if ((old?.size ?? 0) > limits.maxFileBytes || (now?.size ?? 0) > limits.maxFileBytes) {
      omitted.push(path);
      continue;
    }
    const section = await diffEntry(path, pristine, old, root, now);
    size += Buffer.byteLength(section);
    if (size > limits.maxPatchBytes) throw new PatchTooLarge(limits.maxPatchBytes);
    sections.push(section);
  }
  const preamble = omitted.length > 0 ? `# Weft: too large to include, copy these from the archive: ${omitted.join(', ')}\n` : '';
  return { patch: preamble + sections.join(''), files: sections.length, omitted };
}

async function filesOf(root: string, includeIgnored: boolean, limits: PatchLimits): Promise<Tree> {
  const walk = await walkTree(root, root, { recursive: true, includeIgnored, maxEntries: limits.maxEntries });
  if (walk.truncated) throw new PatchTooLarge(limits.maxPatchBytes);
  const tree: Tree = new Map();
  for (const entry of walk.entries) {
    // Folders are not tracked (git has no empty folders); .git is never part of a patch.
    if (entry.type === 'directory' || entry.type === 'other' || entry.path.split('/').includes('.git')) continue;
    tree.set(entry.path, entry);
  }
  return tree;
}

async function differs(pristine: string, old: WalkedEntry | undefined, root: string, now: WalkedEntry | undefined): Promise<boolean> {
  if (!old || !now) return old !== now;
  if (old.type !== now.type || old.size !== now.size) return true;
  const [a, b] = await Promise.all([side(pristine, old), side(root, now)]);
  return a.mode !== b.mode || !a.content.equals(b.content);
}

async function diffEntry(path: string, pristine: string, old: WalkedEntry | undefined, root: string, now: WalkedEntry | undefined) {
  const a = old ? await side(pristine, old) : undefined;
  const b = now ? await side(root, now) : undefined;
  // A file that became a link (or back) is a deletion and an addition, as git writes it.
  if (a && b && (a.mode === '120000') !== (b.mode === '120000')) return fileDiff(path, a, undefined) + fileDiff(path, undefined, b);
  return fileDiff(path, a, b);
}

async function side(root: string, entry: WalkedEntry): Promise<FileSide> {
  const real = join(root, entry.path);
  if (entry.type === 'symlink') return { content: Buffer.from(await readlink(real), 'utf8'), mode: '120000' };
  const handle = await openForRead(root, real);
  try {
    const stats = await handle.stat();
    return { content: await handle.readFile(), mode: (stats.mode & 0o111) !== 0 ? '100755' : '100644' };
  } finally {
    await handle.close();
  }
}
