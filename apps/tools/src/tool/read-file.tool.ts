import { AppError, ErrorCode, readFileArgsSchema } from '@weft/contracts';
import { resolveInside } from '../workspace/path-containment';
import { openForRead } from '../workspace/safe-fs';
import { defineTool } from './tool';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export const readFileTool = defineTool('read_file', {
  description: 'Read a UTF-8 text file of the workspace.',
  parameters: readFileArgsSchema,
  async execute({ path }, { root, limits }) {
    const target = await resolveInside(root, path);
    if (!target.exists) throw new AppError(ErrorCode.FileNotFound, `No file at '${path}'`);
    const handle = await openForRead(root, target.real);
    try {
      const stats = await handle.stat();
      if (stats.isDirectory()) {
        throw new AppError(ErrorCode.NotAFile, `'${path}' is a folder; use list_directory to see what it holds`);
      }
      if (!stats.isFile()) throw new AppError(ErrorCode.NotAFile, `'${path}' is not a regular file`);
      if (stats.size > limits.readFileMaxBytes) {
        throw new AppError(
          ErrorCode.FileTooLarge,
          `'${path}' is ${stats.size} bytes; read_file returns files up to ${limits.readFileMaxBytes} bytes. ` +
            'Read a part of it with a command such as sed -n or head instead.',
        );
      }
      const content = await handle.readFile();
      return decodeText(content, path);
    } finally {
      await handle.close();
    }
  },
});

function decodeText(content: Buffer, path: string): string {
  if (content.length === 0) return '(empty file)';
  const binary = () =>
    new AppError(
      ErrorCode.BinaryFile,
      `'${path}' is a binary file (${content.length} bytes); read_file only shows text files`,
    );
  if (content.includes(0)) throw binary();
  try {
    return utf8.decode(content);
  } catch {
    throw binary();
  }
}
