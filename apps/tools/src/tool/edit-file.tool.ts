import { AppError, ErrorCode } from '@weft/contracts';
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from 'diff';
import { assertWritable } from '../workspace/protected-paths';
import { replaceFile } from '../workspace/safe-fs';
import { readTextFile } from './text-file';
import { defineTool } from './tool';

/** Lines of context around each change in the diff edit_file returns. */
const DIFF_CONTEXT_LINES = 3;

export const editFileTool = defineTool('edit_file', async ({ path, edits }, { root, limits }) => {
  const file = await readTextFile(
    root,
    path,
    limits.readFileMaxBytes,
    (size) => `'${path}' is ${size} bytes; edit_file changes files up to ${limits.readFileMaxBytes} bytes. Use write_file instead.`,
  );
  assertWritable(root, file.real, path);
  const updated = applyEdits(file.text, edits, path);
  await replaceFile(root, file.real, Buffer.from(updated, 'utf8'));
  const diff = structuredPatch(`a/${path}`, `b/${path}`, file.text, updated, undefined, undefined, { context: DIFF_CONTEXT_LINES });
  return `Edited '${path}' (${edits.length} ${edits.length === 1 ? 'replacement' : 'replacements'}):\n${formatPatch(diff, FILE_HEADERS_ONLY).trimEnd()}`;
});

/** All or nothing: the first edit that does not match exactly once fails the call, naming it. */
export function applyEdits(text: string, edits: ReadonlyArray<{ old: string; new: string }>, path: string): string {
  let current = text;
  edits.forEach((edit, i) => {
    const which = edits.length === 1 ? 'the edit' : `edit ${i + 1} of ${edits.length}`;
    const count = countOccurrences(current, edit.old);
    if (count === 0) {
      const hint = i > 0 ? ' (after the edits before it were applied)' : '';
      throw new AppError(ErrorCode.ValidationFailed, `${which}: "old" text was not found in '${path}'${hint}; nothing was changed. ` +
        'Read the file again and copy the text exactly, whitespace included.', { edit: i + 1, matches: 0 });
    }
    if (count > 1) {
      throw new AppError(ErrorCode.ValidationFailed, `${which}: "old" text occurs ${count} times in '${path}'; nothing was changed. ` +
        'Include more surrounding lines so that it matches exactly once.', { edit: i + 1, matches: count });
    }
    if (edit.old === edit.new) {
      throw new AppError(ErrorCode.ValidationFailed, `${which}: "old" and "new" are the same; nothing was changed`, { edit: i + 1 });
    }
    const at = current.indexOf(edit.old);
    current = current.slice(0, at) + edit.new + current.slice(at + edit.old.length);
  });
  return current;
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) count++;
  return count;
}
