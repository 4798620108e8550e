import { chown, lstat, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, ErrorCode } from '@weft/contracts';
import { PROTECTED_FOLDER } from './container-spec';

/**
 * `.weft/` is mounted read-only over a writable workspace, so it must exist, and be a real
 * folder: the engine would follow a link planted there to anywhere on the host.
 */
export async function ensureProtectedFolder(root: string): Promise<void> {
  const path = join(root, PROTECTED_FOLDER);
  const stat = await lstat(path).catch(() => undefined);
  if (stat?.isDirectory()) return;
  if (stat) {
    throw new AppError(ErrorCode.Forbidden, `${PROTECTED_FOLDER} in the workspace is not a folder; a writable run cannot protect it`);
  }
  const owner = await lstat(root);
  await mkdir(path, { mode: 0o755 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  if (!(await lstat(path)).isDirectory()) throw new AppError(ErrorCode.Forbidden, `${PROTECTED_FOLDER} in the workspace is not a folder`);
  // As the workspace's other files; a worker that is not root (tests) keeps its own owner.
  await chown(path, owner.uid, owner.gid).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPERM') throw error;
  });
}
