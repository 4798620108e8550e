import type { Stats } from 'node:fs';
import { type ReadEntry, create } from 'tar';

/** The result is carried base64 in one NATS message (16 MiB max payload): 8 MiB leaves room. */
export const EXPORT_MAX_BYTES = 8 * 1024 * 1024;

export class ExportTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the workspace archive is larger than ${maxBytes} bytes compressed`);
    this.name = 'ExportTooLarge';
  }
}

/** tar.gz of a workspace: links kept as links, special files left out, no owner names. */
export function exportArchive(root: string, maxBytes = EXPORT_MAX_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stream = create(
      { gzip: true, cwd: root, portable: true, follow: false, filter: (_path: string, stat: Stats | ReadEntry) => exportable(stat) },
      ['.'],
    );
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        stream.destroy(new ExportTooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    });
    stream.on('error', reject);
    stream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

function exportable(stat: Stats | ReadEntry): boolean {
  if (!('isFile' in stat)) return false;
  return stat.isFile() || stat.isDirectory() || stat.isSymbolicLink();
}
