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
  if (target.exists) {
    if ((await lstat(target.real)).isDirectory()) return `'${path}' already exists`;
    throw new AppError(ErrorCode.NotADirectory, `'${path}' exists and is not a folder`);
  }
  await makeFolder(root, target.real);
  return `Created folder '${path}'`;
});
