import { AppError, ErrorCode } from '@weft/contracts';
import { lstat } from 'node:fs/promises';
import { resolveInside } from '../workspace/path-containment';
import { assertWritable } from '../workspace/protected-paths';
import { makeFolder } from '../workspace/safe-fs';
import { defineTool } from './tool';

export const createDirectoryTool = defineTool('create_directory', async ({ path }, { root }) => {
  const target = await resolveInside(root, path);
  assertWritable(root, target.real, path);
  if (target.danglingLink) {
    throw new AppError(ErrorCode.NotADirectory, `'${path}' is a symbolic link whose target does not exist`);
  }
  // Gone since it was resolved (a sandbox run removed it): then it is made below.
  const existing = target.exists ? await lstat(target.real).catch(missingAsNull) : null;
  if (existing?.isDirectory()) return `'${path}' already exists`;
  if (existing) throw new AppError(ErrorCode.NotADirectory, `'${path}' exists and is not a folder`);
  await makeFolder(root, target.real);
  return `Created folder '${path}'`;
});

function missingAsNull(error: NodeJS.ErrnoException): null {
  if (error.code === 'ENOENT') return null;
  throw error;
}
