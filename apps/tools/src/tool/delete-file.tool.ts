import { AppError, ErrorCode } from '@weft/contracts';
import { assertWritable } from '../workspace/protected-paths';
import { resolveLeaf } from '../workspace/resolve-leaf';
import { removeInside } from '../workspace/safe-fs';
import { defineTool } from './tool';

/**
 * Deletes a name: a link is removed, never what it points to. Every removal goes through pinned
 * folder descriptors (`removeInside`), so a folder swapped for a link mid-delete by concurrent
 * sandbox code is removed as a link, and nothing outside the workspace is touched.
 */
export const deleteFileTool = defineTool('delete_file', async ({ path, recursive }, { root }) => {
  const target = await resolveLeaf(root, path);
  assertWritable(root, target.real, path);
  switch (target.kind) {
    case 'missing':
      throw new AppError(ErrorCode.FileNotFound, `No file or folder at '${path}'`);
    case 'directory':
      await removeFolder(root, target.real, path, recursive);
      return `Deleted folder '${path}'`;
    case 'file':
    case 'symlink':
    case 'other':
      await removeInside(root, target.real, false);
      return `Deleted '${path}'`;
  }
});

async function removeFolder(root: string, real: string, path: string, recursive: boolean): Promise<void> {
  try {
    await removeInside(root, real, recursive);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY') throw error;
    throw new AppError(ErrorCode.ValidationFailed, `'${path}' is a folder that is not empty; pass recursive: true to delete it all`);
  }
}
