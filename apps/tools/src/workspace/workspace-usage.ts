import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export interface Usage {
  files: number;
  bytes: number;
}

/** Files and bytes under `root`, links not followed, hard-linked bytes counted once. */
export async function measureTree(root: string): Promise<Usage> {
  const usage: Usage = { files: 0, bytes: 0 };
  const inodes = new Set<string>();
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(ignoreVanished)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        pending.push(path);
        continue;
      }
      usage.files++;
      if (!entry.isFile()) continue;
      const stats = await lstat(path).catch((error: NodeJS.ErrnoException) => (vanished(error) ? null : Promise.reject(error)));
      if (!stats || inodes.has(`${stats.dev}:${stats.ino}`)) continue;
      inodes.add(`${stats.dev}:${stats.ino}`);
      usage.bytes += stats.size;
    }
  }
  return usage;
}

/** A sandbox run may delete files while they are counted. */
function vanished(error: NodeJS.ErrnoException): boolean {
  return error.code === 'ENOENT' || error.code === 'ENOTDIR';
}

function ignoreVanished(error: NodeJS.ErrnoException): never[] {
  if (vanished(error)) return [];
  throw error;
}
