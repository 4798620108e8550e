import { formatPatch, OMIT_HEADERS, structuredPatch } from 'diff';
import { NULL_OBJECT_ID, binaryLiteral, gitBlobId } from './git-binary';

/** One side of a changed path: content (a link's target for links) and git's mode. */
export interface FileSide {
  content: Buffer;
  mode: '100644' | '100755' | '120000';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** One `diff --git` section, as `git diff --binary` would write it; `undefined` sides are absent. */
export function fileDiff(path: string, before: FileSide | undefined, after: FileSide | undefined): string {
  const a = quotePath(`a/${path}`);
  const b = quotePath(`b/${path}`);
  const lines = [`diff --git ${a} ${b}`];
  if (!before && after) lines.push(`new file mode ${after.mode}`);
  else if (before && !after) lines.push(`deleted file mode ${before.mode}`);
  else if (before && after && before.mode !== after.mode) lines.push(`old mode ${before.mode}`, `new mode ${after.mode}`);
  const oldContent = before?.content ?? Buffer.alloc(0);
  const newContent = after?.content ?? Buffer.alloc(0);
  if (oldContent.equals(newContent)) return `${lines.join('\n')}\n`;
  if (isBinary(oldContent) || isBinary(newContent)) {
    const oldId = before ? gitBlobId(oldContent) : NULL_OBJECT_ID;
    const newId = after ? gitBlobId(newContent) : NULL_OBJECT_ID;
    lines.push(`index ${oldId}..${newId}`, 'GIT binary patch', binaryLiteral(newContent));
    return `${lines.join('\n')}\n`;
  }
  lines.push(before ? `--- ${a}` : '--- /dev/null', after ? `+++ ${b}` : '+++ /dev/null');
  const hunks = structuredPatch(a, b, oldContent.toString('utf8'), newContent.toString('utf8'), undefined, undefined, { context: 3 });
  return `${lines.join('\n')}\n${formatPatch(hunks, OMIT_HEADERS)}`;
}

/** git's rule of thumb: a NUL byte (or, here, bytes that are not UTF-8) means binary. */
export function isBinary(content: Buffer): boolean {
  if (content.includes(0)) return true;
  try {
    utf8.decode(content);
    return false;
  } catch {
    return true;
  }
}

/** C-style quoting, as git does for names with control characters, quotes, backslashes or non-ASCII. */
export function quotePath(name: string): string {
  const bytes = Buffer.from(name, 'utf8');
  if (!bytes.some((byte) => byte < 0x20 || byte >= 0x7f || byte === 0x22 || byte === 0x5c)) return name;
  const escapes: Record<number, string> = { 0x07: '\\a', 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0b: '\\v', 0x0c: '\\f', 0x0d: '\\r', 0x22: '\\"', 0x5c: '\\\\' };
  let out = '';
  for (const byte of bytes) {
    if (escapes[byte]) out += escapes[byte];
    else if (byte < 0x20 || byte >= 0x7f) out += `\\${byte.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(byte);
  }
  return `"${out}"`;
}
