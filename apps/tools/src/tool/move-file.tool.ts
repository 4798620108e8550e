import { dirname } from 'node:path';
import { AppError, ErrorCode } from '@weft/contracts';
import { isInside } from '../workspace/path-containment';
import { assertWritable } from '../workspace/protected-paths';
import { resolveLeaf } from '../workspace/resolve-leaf';
import { makeFolder, renameInside } from '../workspace/safe-fs';
import { defineTool } from './tool';

/** rename(2) on names through pinned parents: a link is moved as a link, never through. */
export const moveFileTool = defineTool('move_file', async ({ from, to, overwrite }, { root }) => {
  const source = await resolveLeaf(root, from);
  const destination = await resolveLeaf(root, to);
  assertWritable(root, source.real, from);
  assertWritable(root, destination.real, to);
  if (source.kind === 'missing') throw new AppError(ErrorCode.FileNotFound, `No file or folder at '${from}'`);
  if (source.real === destination.real) return `'${from}' and '${to}' are the same place; nothing moved`;
  if (source.kind === 'directory' && isInside(source.real, destination.real)) {
    throw new AppError(ErrorCode.ValidationFailed, `Cannot move the folder '${from}' into itself ('${to}')`);
  }
  if (destination.kind === 'directory') {
    throw new AppError(ErrorCode.Conflict, `'${to}' is an existing folder; give the full new path, such as '${to}/name'`);
  }
  if (destination.kind !== 'missing' && !overwrite) {
    throw new AppError(ErrorCode.Conflict, `'${to}' already exists; pass overwrite: true to replace it`);
  }
  await makeFolder(root, dirname(destination.real));
  await renameInside(root, source.real, destination.real);
  return `Moved '${from}' to '${to}'`;
});
