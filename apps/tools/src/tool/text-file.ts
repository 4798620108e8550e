import { AppError, ErrorCode } from '@weft/contracts';
import { resolveInside } from '../workspace/path-containment';
import { openForRead } from '../workspace/safe-fs';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface TextFile {
  /** Real path (links followed, contained). */
  real: string;
  text: string;
  size: number;
}

/**
 * Reads a regular UTF-8 file of at most `maxBytes`. `tooLarge` words the refusal, so each tool
 * can say what to do instead.
 */
export async function readTextFile(
  root: string,
  path: string,
  maxBytes: number,
  tooLarge: (size: number) => string,
): Promise<TextFile> {
  const target = await resolveInside(root, path);
  if (!target.exists) throw new AppError(ErrorCode.FileNotFound, `No file at '${path}'`);
  const handle = await openForRead(root, target.real);
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) {
      throw new AppError(ErrorCode.NotAFile, `'${path}' is a folder; use list_directory to see what it holds`);
    }
    if (!stats.isFile()) throw new AppError(ErrorCode.NotAFile, `'${path}' is not a regular file`);
    if (stats.size > maxBytes) throw new AppError(ErrorCode.FileTooLarge, tooLarge(stats.size));
    const content = await handle.readFile();
    return { real: target.real, text: decodeText(content, path), size: content.length };
  } finally {
    await handle.close();
  }
}

/** NUL bytes or invalid UTF-8 mean binary: refused rather than shown as mojibake. */
export function decodeText(content: Buffer, path: string): string {
  const binary = () =>
    new AppError(ErrorCode.BinaryFile, `'${path}' is a binary file (${content.length} bytes); only text files can be read or edited`);
  if (content.includes(0)) throw binary();
  try {
    return utf8.decode(content);
  } catch (error) {
    throw Object.assign(binary(), { cause: error });
  }
}

/** Lines as an editor counts them: a final newline does not start another line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}
