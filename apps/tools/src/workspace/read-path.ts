import { AppError, ErrorCode, type ReadPathResult } from '@weft/contracts';
import { resolveInside } from './path-containment';
import { listEntries, openForRead } from './safe-fs';

/** What the gateway serves from `GET /v1/workspaces/:id/files/<path>` in one reply. */
export const READ_PATH_MAX_BYTES = 8 * 1024 * 1024;

/** A file's bytes or a folder's entries, for the gateway's file route; `''` is the root. */
export async function readPathIn(root: string, path: string): Promise<ReadPathResult> {
  const target = await resolveInside(root, path === '' ? '.' : path);
  if (!target.exists) throw new AppError(ErrorCode.FileNotFound, `No file or folder at '${path}'`, { path });
  const handle = await openForRead(root, target.real);
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) return { kind: 'directory', entries: await listEntries(root, target.real) };
    if (!stats.isFile()) throw new AppError(ErrorCode.NotAFile, `'${path}' is not a regular file`, { path });
    if (stats.size > READ_PATH_MAX_BYTES) {
      throw new AppError(ErrorCode.FileTooLarge, `'${path}' is larger than ${READ_PATH_MAX_BYTES} bytes`, {
        path,
        size: stats.size,
        maxBytes: READ_PATH_MAX_BYTES,
      });
    }
    const content = await handle.readFile();
    return { kind: 'file', size: content.length, contentBase64: content.toString('base64') };
  } finally {
    await handle.close();
  }
}
