import { rm, rmdir, unlink } from 'node:fs/promises';
import { AppError, ErrorCode } from '@weft/contracts';
import { assertWritable } from '../workspace/protected-paths';
import { resolveLeaf } from '../workspace/resolve-leaf';
import { defineTool } from './tool';

/**
 * Deletes a name: a link is removed, never what it points to. A recursive delete does not
 * follow links inside the folder either (`fs.rm`); a folder swapped for a link mid-delete by
 * concurrent sandbox code is the window that remains (Node has no unlinkat).
 */
export const deleteFileTool = defineTool('delete_file', async ({ path, recursive }, { root }) => {
  const target = await resolveLeaf(root, path);
  assertWritable(root, target.real, path);
  switch (target.kind) {
    case 'missing':
      throw new AppError(ErrorCode.FileNotFound, `No file or folder at '${path}'`);
    case 'directory':
      if (recursive) await rm(target.real, { recursive: true });
      else await removeEmptyFolder(target.real, path);
      return `Deleted folder '${path}'`;
    case 'file':
    case 'symlink':
    case 'other':
      await unlink(target.real);
      return `Deleted '${path}'`;
  }
});

async function removeEmptyFolder(real: string, path: string): Promise<void> {
  try {
    await rmdir(real);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY') throw error;
    throw new AppError(ErrorCode.ValidationFailed, `'${path}' is a folder that is not empty; pass recursive: true to delete it all`);
  }
}
