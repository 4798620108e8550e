import { type FileHandle, mkdir, rename } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { fdPath, kindIn, openFolderLiteral } from './literal-tree';
import { removeInside } from './safe-fs';

type Step =
  | { kind: 'moved-away'; path: string; slot: string }
  | { kind: 'placed'; path: string }
  | { kind: 'made-folder'; path: string };

/**
 * Changes a workspace in place, path by path, keeping what it replaces or removes in a backup
 * folder beside the workspaces (never inside one), so that `rollback` puts everything back as it
 * was. Every path is taken literally: each folder on the way is opened through the one before
 * with O_NOFOLLOW, so a link planted in the workspace is replaced or refused, never followed.
 */
export class SyncJournal {
  private readonly steps: Step[] = [];
  private slots = 0;

  constructor(
    private readonly root: string,
    private readonly backups: string,
  ) {}

  /** Moves what is at `path` to the backups; false when nothing is there. */
  async moveAway(path: string): Promise<boolean> {
    const parent = await this.openParent(path, false);
    if (!parent) return false;
    try {
      return await this.moveAwayIn(parent, path);
    } finally {
      await parent.close();
    }
  }

  /** Makes `path` a folder, each missing folder on the way too; a file or link in the way is moved away. */
  async ensureFolder(path: string): Promise<void> {
    const names = path === '' ? [] : path.split('/');
    for (let i = 0; i < names.length; i++) {
      const at = names.slice(0, i + 1).join('/');
      const parent = await openFolderLiteral(this.root, names.slice(0, i).join('/'));
      try {
        const kind = await kindIn(parent, names[i] as string);
        if (kind === 'directory') continue;
        if (kind !== 'missing') await this.moveAwayIn(parent, at);
        await mkdir(`${fdPath(parent)}/${names[i]}`, { mode: 0o755 });
        this.steps.push({ kind: 'made-folder', path: at });
      } finally {
        await parent.close();
      }
    }
  }

  /** Moves `staged/<path>` (a file or link) to `path`, replacing whatever is there. */
  async place(staged: string, path: string): Promise<void> {
    await this.ensureFolder(parentOf(path));
    const parent = await this.openParent(path, true);
    if (!parent) throw new Error(`the folder of '${path}' vanished while it was synced`);
    try {
      await this.moveAwayIn(parent, path);
      await rename(join(staged, path), `${fdPath(parent)}/${posix.basename(path)}`);
      this.steps.push({ kind: 'placed', path });
    } finally {
      await parent.close();
    }
  }

  /** Undoes every step, newest first. Throws the first failure after trying them all. */
  async rollback(): Promise<void> {
    let failure: unknown;
    for (const step of this.steps.reverse()) {
      try {
        await this.undo(step);
      } catch (error) {
        failure ??= error;
      }
    }
    this.steps.length = 0;
    if (failure) throw failure;
  }

  private async undo(step: Step): Promise<void> {
    if (step.kind === 'placed' || step.kind === 'made-folder') {
      await removeInside(this.root, join(this.root, step.path), true);
      return;
    }
    const parent = await openFolderLiteral(this.root, parentOf(step.path));
    try {
      const name = posix.basename(step.path);
      // Whatever took its place since (code run in the workspace) gives way to the original.
      if ((await kindIn(parent, name)) !== 'missing') await removeInside(this.root, join(this.root, step.path), true);
      await rename(join(this.backups, step.slot), `${fdPath(parent)}/${name}`);
    } finally {
      await parent.close();
    }
  }

  private async moveAwayIn(parent: FileHandle, path: string): Promise<boolean> {
    const name = posix.basename(path);
    if ((await kindIn(parent, name)) === 'missing') return false;
    const slot = String(this.slots++);
    await rename(`${fdPath(parent)}/${name}`, join(this.backups, slot));
    this.steps.push({ kind: 'moved-away', path, slot });
    return true;
  }

  /** The open folder holding `path`; undefined when it is not there (or not a folder) and `required` is false. */
  private async openParent(path: string, required: boolean): Promise<FileHandle | undefined> {
    try {
      return await openFolderLiteral(this.root, parentOf(path));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (!required && (code === 'ENOENT' || code === 'ENOTDIR')) return undefined;
      throw error;
    }
  }
}

function parentOf(path: string): string {
  const parent = posix.dirname(path);
  return parent === '.' ? '' : parent;
}
