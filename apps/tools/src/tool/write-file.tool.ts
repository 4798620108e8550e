import { AppError, ErrorCode, writeFileArgsSchema } from '@weft/contracts';
import { resolveInside } from '../workspace/path-containment';
import { openForWrite } from '../workspace/safe-fs';
import { defineTool } from './tool';

export const writeFileTool = defineTool('write_file', {
  description: 'Create or replace a file of the workspace with the given content; parent folders are created.',
  parameters: writeFileArgsSchema,
  async execute({ path, content }, { root }) {
    const target = await resolveInside(root, path);
    if (target.danglingLink) {
      throw new AppError(
        ErrorCode.NotAFile,
        `'${path}' is a symbolic link whose target does not exist; write to a regular path instead`,
      );
    }
    if (target.real === root) throw new AppError(ErrorCode.NotAFile, `'${path}' is the workspace root, not a file`);
    const handle = await openForWrite(root, target.real);
    try {
      const bytes = Buffer.from(content, 'utf8');
      await handle.writeFile(bytes);
      return `${target.exists ? 'Replaced' : 'Created'} '${path}' (${bytes.length} bytes)`;
    } finally {
      await handle.close();
    }
  },
});
