import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { ManifestEntry } from '@weft/contracts';
import type { ProjectEntry } from './project-files';

/**
 * What an upload of `entries` (a folder's project files, as `ProjectFiles.select` lists them)
 * would send: folders, files with their SHA-256 and executable bit, and links as links.
 */
export async function folderManifest(dir: string, entries: readonly ProjectEntry[]): Promise<ManifestEntry[]> {
  const manifest: ManifestEntry[] = [];
  for (const { path, type } of entries) {
    const absolute = join(dir, path);
    if (type === 'directory') manifest.push({ path, type });
    else if (type === 'symlink') manifest.push({ path, type, target: await readlink(absolute) });
    else {
      const stats = await lstat(absolute);
      const hash = createHash('sha256');
      let size = 0;
      for await (const chunk of createReadStream(absolute) as AsyncIterable<Buffer>) {
        size += chunk.length;
        hash.update(chunk);
      }
      manifest.push({ path, type, size, sha256: hash.digest('hex'), executable: (stats.mode & 0o111) !== 0 });
    }
  }
  return manifest;
}
