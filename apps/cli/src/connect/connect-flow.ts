import { chmod, copyFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { RefusedError } from '../errors';
import type { ConnectClient, Homes } from './clients';
import type { ConnectTarget } from './connect-target';
import type { Verifier } from './verify-request';

/** One file's text now (undefined: there is none) and after Weft's settings are merged in. */
export interface FileChange {
  readonly path: string;
  readonly current: string | undefined;
  readonly next: string;
}

/** What the flow prints and asks; the command gives it the terminal, tests a recorder. */
export interface ConnectIo {
  say(text: string): void;
  confirm(question: string): Promise<boolean>;
}

export interface ConnectOutcome {
  readonly written: readonly { readonly path: string; readonly backup?: string }[];
  readonly verified: boolean;
}

/** The files as they would become; nothing is written. */
export async function planChanges(client: ConnectClient, homes: Homes, target: ConnectTarget): Promise<FileChange[]> {
  const changes: FileChange[] = [];
  for (const file of client.files(homes)) {
    const current = await readIfPresent(file.path);
    changes.push({ path: file.path, current, next: file.merge(current, target) });
  }
  return changes;
}

/** The change as a unified diff, the key masked: it is shown on a terminal that others may see or record. */
export function changeDiff(change: FileChange, key: string): string {
  const mask = (text: string) => text.replaceAll(key, `${key.slice(0, 9)}…`);
  return createTwoFilesPatch(change.path, change.path, mask(change.current ?? ''), mask(change.next), change.current === undefined ? '(none)' : 'now', 'with Weft');
}

/**
 * Shows each change, asks before it replaces a file that exists (unless `yes`), writes the files
 * (each one it replaces copied to a backup first), sends the one request that proves them and
 * says how to undo it all.
 */
export async function connectClientFiles(
  io: ConnectIo,
  client: ConnectClient,
  homes: Homes,
  target: ConnectTarget,
  options: { readonly yes: boolean; readonly verify: Verifier; readonly now?: Date },
): Promise<ConnectOutcome> {
  const changes = (await planChanges(client, homes, target)).filter((change) => change.current !== change.next);
  for (const change of changes) io.say(changeDiff(change, target.key));
  if (changes.length === 0) io.say(`${client.name} already has these settings.`);
  const overwrites = changes.filter((change) => change.current !== undefined);
  if (overwrites.length > 0 && !options.yes) {
    const accepted = await io.confirm(`Change ${overwrites.map((change) => change.path).join(' and ')} as shown?`);
    if (!accepted) throw new RefusedError(`left ${overwrites.map((change) => change.path).join(' and ')} unchanged (run again with --yes to accept the change)`);
  }
  const stamp = (options.now ?? new Date()).toISOString().replace(/[:.]/g, '-');
  const written: { path: string; backup?: string }[] = [];
  for (const change of changes) written.push(await writeChange(change, `${change.path}.weft-backup-${stamp}`));
  let verified = false;
  try {
    await options.verify(client.api, target);
    verified = true;
    io.say(`Checked: ${target.model} answered a request sent with these settings.`);
  } finally {
    if (!verified) io.say('The check request failed: the settings are written, but the client will meet the same error.');
    io.say(undoText(written));
  }
  if (client.next) io.say(client.next(client.files(homes).map((file) => file.path)));
  return { written, verified };
}

/** How to put each file back: its backup, or removing a file that was new. */
export function undoText(written: readonly { readonly path: string; readonly backup?: string }[]): string {
  if (written.length === 0) return 'Nothing was written.';
  const lines = written.map(({ path, backup }) => (backup ? `  mv '${backup}' '${path}'` : `  rm '${path}'`));
  return `To undo:\n${lines.join('\n')}`;
}

async function writeChange(change: FileChange, backupPath: string): Promise<{ path: string; backup?: string }> {
  await mkdir(dirname(change.path), { recursive: true, mode: 0o700 });
  let backup: string | undefined;
  if (change.current !== undefined) {
    await copyFile(change.path, backupPath);
    await chmod(backupPath, 0o600);
    backup = backupPath;
  }
  // The files hold a key: the owner's alone, and replaced whole so a crash leaves the old one.
  const tmp = `${change.path}.${process.pid}.tmp`;
  await writeFile(tmp, change.next, { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, change.path);
  return { path: change.path, ...(backup ? { backup } : {}) };
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
