import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type ManifestEntry, SYNC_SKIPPED_NAMES } from '@weft/contracts';

/**
 * What `dir` holds as an upload would send it: folders, files (with their SHA-256 and executable
 * bit) and links as links, without .git and node_modules at any depth; special files are left
 * out, as the upload leaves them out.
 */
export async function folderManifest(dir: string): Promise<ManifestEntry[]> {
  const entries: ManifestEntry[] = [];
  await walk(dir, '', entries);
  return entries;
}

async function walk(root: string, prefix: string, entries: ManifestEntry[]): Promise<void> {
  const names = (await readdir(prefix === '' ? root : join(root, prefix))).sort();
  for (const name of names) {
    if (SYNC_SKIPPED_NAMES.includes(name)) continue;
    const path = prefix === '' ? name : `${prefix}/${name}`;
    const absolute = join(root, path);
    const stats = await lstat(absolute);
    if (stats.isDirectory()) {
      entries.push({ path, type: 'directory' });
      await walk(root, path, entries);
    } else if (stats.isSymbolicLink()) {
      entries.push({ path, type: 'symlink', target: await readlink(absolute) });
    } else if (stats.isFile()) {
      const hash = createHash('sha256');
      let size = 0;
      for await (const chunk of createReadStream(absolute) as AsyncIterable<Buffer>) {
        size += chunk.length;
        hash.update(chunk);
      }
      entries.push({ path, type: 'file', size, sha256: hash.digest('hex'), executable: (stats.mode & 0o111) !== 0 });
    }
  }
}
