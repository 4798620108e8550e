import { posix, win32 } from 'node:path';
import { displayName } from '../workspace/display-name';
import { describePathProblem, findPathProblem } from '../workspace/path-syntax';

export interface ArchiveLimits {
  maxBytes: number;
  maxEntries: number;
}

export interface ArchiveEntry {
  path: string;
  type: string;
  linkpath?: string;
  size: number;
}

export interface ArchiveTotals {
  files: number;
  bytes: number;
}

/** node-tar's own limit on folders in an entry's path: past it, unpacking fails midway. */
export const MAX_ENTRY_DEPTH = 1024;

const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);
const ALLOWED_TYPES = new Set([...FILE_TYPES, 'Directory', 'SymbolicLink', 'Link']);

/**
 * Names a rejected entry (as the archive names it, relative to the workspace: control characters
 * escaped, cut at 200 characters) and why; the message reaches the uploader as is.
 */
export class EntryRejected extends Error {
  readonly entry: string;

  constructor(entry: string, reason: string, options?: { cause?: unknown }) {
    const shown = displayName(entry);
    super(`entry '${shown}' ${reason}`, options);
    this.name = 'EntryRejected';
    this.entry = shown;
  }
}

/**
 * Decides, entry by entry, whether an archive may be unpacked. It sees the whole list first, so a
 * link declared after the entries that would pass through it is still caught.
 */
export function checkEntries(entries: readonly ArchiveEntry[], limits: ArchiveLimits): ArchiveTotals {
  if (entries.length > limits.maxEntries) {
    throw new EntryRejected(entries[limits.maxEntries]?.path ?? '', `exceeds the limit of ${limits.maxEntries} entries`);
  }
  const symlinks = new Set(entries.filter((e) => e.type === 'SymbolicLink').map((e) => normalizeEntryPath(e.path)));
  let files = 0;
  let bytes = 0;
  for (const entry of entries) {
    checkEntry(entry, symlinks);
    if (FILE_TYPES.has(entry.type) || entry.type === 'Link') files++;
    if (FILE_TYPES.has(entry.type)) bytes += entry.size;
    if (bytes > limits.maxBytes) {
      throw new EntryRejected(entry.path, `brings the unpacked size past the limit of ${limits.maxBytes} bytes`);
    }
  }
  return { files, bytes };
}

/** The file whose bytes take the running total past `maxBytes` (a quota), to name it. */
export function entryCrossing(entries: readonly ArchiveEntry[], maxBytes: number): ArchiveEntry | undefined {
  let bytes = 0;
  for (const entry of entries) {
    if (FILE_TYPES.has(entry.type)) bytes += entry.size;
    if (bytes > maxBytes) return entry;
  }
  return undefined;
}

export function checkEntry(entry: ArchiveEntry, symlinks: ReadonlySet<string> = new Set()): void {
  if (!ALLOWED_TYPES.has(entry.type)) {
    throw new EntryRejected(entry.path, `is a ${describeType(entry.type)}; only files, folders and links are allowed`);
  }
  const path = checkRelative(entry.path, entry.path, 'path');
  if (path === '') return;
  if (throughSymlink(path, symlinks)) {
    throw new EntryRejected(entry.path, 'lies under a symbolic link of the archive');
  }
  if (entry.type === 'SymbolicLink') checkSymlinkTarget(entry, path);
  if (entry.linkpath) checkNotNestedInTarget(entry);
  if (entry.type === 'Link') {
    const target = checkRelative(entry.linkpath ?? '', entry.path, 'hard link target');
    if (target === '' || throughSymlink(target, symlinks, true)) {
      throw new EntryRejected(entry.path, `is a hard link to '${displayName(entry.linkpath ?? '')}', which is not a file of the archive`);
    }
  }
}

/**
 * Rejects paths the filesystem cannot hold, absolute paths and any `..` component; returns the
 * normalized relative path.
 */
function checkRelative(value: string, entry: string, what: string): string {
  checkHoldable(value, entry, what);
  if (posix.isAbsolute(value) || /^[a-zA-Z]:/.test(value) || value.startsWith('\\')) {
    throw new EntryRejected(entry, `has an absolute ${what} '${displayName(value)}'`);
  }
  if (value.split(/[\\/]/).includes('..')) {
    throw new EntryRejected(entry, `has '..' in its ${what} '${displayName(value)}'`);
  }
  const normalized = normalizeEntryPath(value);
  if (normalized.split('/').length > MAX_ENTRY_DEPTH) {
    throw new EntryRejected(entry, `has a ${what} nested deeper than ${MAX_ENTRY_DEPTH} folders`);
  }
  return normalized;
}

/** A NUL byte, a name over 255 bytes or a path over 4095 bytes: refused before anything is written. */
function checkHoldable(value: string, entry: string, what: string): void {
  const problem = findPathProblem(value);
  if (problem) throw new EntryRejected(entry, `has a ${what} the filesystem cannot hold: ${describePathProblem(problem)}`);
}

function checkSymlinkTarget(entry: ArchiveEntry, path: string): void {
  const target = entry.linkpath ?? '';
  if (target === '') throw new EntryRejected(entry.path, 'is a symbolic link without a target');
  checkHoldable(target, entry.path, 'link target');
  if (posix.isAbsolute(target)) {
    throw new EntryRejected(entry.path, `is a symbolic link to the absolute path '${displayName(target)}'`);
  }
  // Lexical check here; chains of links are checked again on disk after unpacking.
  const resolved = posix.normalize(posix.join(posix.dirname(path), target));
  if (resolved === '..' || resolved.startsWith('../')) {
    throw new EntryRejected(entry.path, `is a symbolic link to '${displayName(target)}', outside the workspace`);
  }
}

/**
 * node-tar reserves an entry's path and its link target (any entry's: a pax header can give a
 * file one), each with its parent folders, before it writes the entry; when one lies inside the
 * other (`a -> a/b`, `a/b -> a`) the entry waits on itself and unpacking never ends. Compared as
 * node-tar compares them: accents and case folded.
 */
function checkNotNestedInTarget(entry: ArchiveEntry): void {
  const path = reservationKey(entry.path);
  const target = reservationKey(entry.linkpath ?? '');
  if (target.startsWith(`${path}/`) || path.startsWith(`${target}/`)) {
    throw new EntryRejected(entry.path, `has a link target '${displayName(entry.linkpath ?? '')}' that lies inside its own path or holds it`);
  }
}

function reservationKey(value: string): string {
  return posix.join(stripRoot(value).normalize('NFD').toLocaleLowerCase('en').toLocaleUpperCase('en')).replace(/\/+$/, '');
}

/** What node-tar takes off an absolute name (`/`, `C:`, `//?/C:/`) before it writes or reserves it. */
function stripRoot(value: string): string {
  let rest = value;
  while (win32.isAbsolute(rest) || win32.parse(rest).root) {
    const root = rest.startsWith('/') && !rest.startsWith('//?/') ? '/' : win32.parse(rest).root;
    rest = rest.slice(root.length);
  }
  return rest;
}

function throughSymlink(path: string, symlinks: ReadonlySet<string>, includeLeaf = false): boolean {
  const parts = path.split('/');
  const last = includeLeaf ? parts.length : parts.length - 1;
  for (let i = 1; i <= last; i++) {
    if (symlinks.has(parts.slice(0, i).join('/'))) return true;
  }
  return false;
}

function normalizeEntryPath(value: string): string {
  const normalized = posix.normalize(value.replace(/\\/g, '/')).replace(/\/+$/, '');
  return normalized === '.' ? '' : normalized.replace(/^\.\//, '');
}

function describeType(type: string): string {
  const names: Record<string, string> = {
    CharacterDevice: 'character device',
    BlockDevice: 'block device',
    FIFO: 'FIFO',
  };
  return names[type] ?? `'${type}' entry`;
}
