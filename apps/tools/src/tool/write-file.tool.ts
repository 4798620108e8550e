import { AppError, ErrorCode } from '@weft/contracts';
import { resolveInside } from '../workspace/path-containment';
import { assertWritable } from '../workspace/protected-paths';
import { replaceFile } from '../workspace/safe-fs';
import { defineTool } from './tool';

export const writeFileTool = defineTool('write_file', async ({ path, content }, { root }) => {
  const target = await resolveInside(root, path);
  assertWritable(root, target.real, path);
  if (target.danglingLink) {
    throw new AppError(ErrorCode.NotAFile, `'${path}' is a symbolic link whose target does not exist; write to a regular path instead`);
  }
  if (target.real === root) throw new AppError(ErrorCode.NotAFile, `'${path}' is the workspace root, not a file`);
  const bytes = Buffer.from(content, 'utf8');
  await replaceFile(root, target.real, bytes);
  return `${target.exists ? 'Replaced' : 'Created'} '${path}' (${bytes.length} bytes)`;
});
