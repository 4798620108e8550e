import { AppError, ErrorCode } from '@weft/contracts';
import { readTextFile, splitLines } from './text-file';
import { defineTool } from './tool';

/** A read of a line range may open files this large; a whole-file read stops at READ_FILE_MAX_BYTES. */
export const RANGED_READ_MAX_BYTES = 32 * 1024 * 1024;
/** Lines returned when offset is given without limit. */
export const DEFAULT_LINE_LIMIT = 2000;

export const readFileTool = defineTool('read_file', async ({ path, offset, limit }, { root, limits }) => {
  const ranged = offset !== undefined || limit !== undefined;
  const maxBytes = ranged ? Math.max(RANGED_READ_MAX_BYTES, limits.readFileMaxBytes) : limits.readFileMaxBytes;
  const file = await readTextFile(root, path, maxBytes, (size) =>
    ranged
      ? `'${path}' is ${size} bytes; read_file opens files up to ${maxBytes} bytes. Use search_files to find what you need in it.`
      : `'${path}' is ${size} bytes; read_file returns whole files up to ${maxBytes} bytes. ` +
        'Read part of it with offset and limit (lines), or find lines with search_files.',
  );
  const lines = splitLines(file.text);
  if (lines.length === 0) return `(empty file)`;
  const first = offset ?? 1;
  if (first > lines.length) {
    throw new AppError(ErrorCode.ValidationFailed, `offset ${first} is past the end of '${path}', which has ${lines.length} lines`);
  }
  const last = Math.min(lines.length, first - 1 + (limit ?? (ranged ? DEFAULT_LINE_LIMIT : lines.length)));
  const width = String(last).length;
  const body = lines
    .slice(first - 1, last)
    .map((line, i) => `${String(first + i).padStart(width)}\t${line}`)
    .join('\n');
  if (first === 1 && last === lines.length) return body;
  const more = last < lines.length ? `; read on with offset ${last + 1}` : '';
  return `${body}\n(lines ${first}-${last} of ${lines.length}${more})`;
});
