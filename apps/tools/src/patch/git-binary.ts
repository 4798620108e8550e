import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';

const BASE85 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~';
/** git writes at most 52 bytes of deflated data per line. */
const BYTES_PER_LINE = 52;
export const NULL_OBJECT_ID = '0'.repeat(40);

/** The id git gives this content as a blob; `git apply` checks binary patches against it. */
export function gitBlobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** A `literal` hunk of a `GIT binary patch`: the whole new content, deflated and base85-encoded. */
export function binaryLiteral(content: Buffer): string {
  const deflated = deflateSync(content);
  const lines = [`literal ${content.length}`];
  for (let at = 0; at < deflated.length; at += BYTES_PER_LINE) {
    const chunk = deflated.subarray(at, at + BYTES_PER_LINE);
    lines.push(lengthChar(chunk.length) + base85(chunk));
  }
  return `${lines.join('\n')}\n`;
}

function lengthChar(length: number): string {
  return length <= 26 ? String.fromCharCode(64 + length) : String.fromCharCode(96 + length - 26);
}

function base85(bytes: Buffer): string {
  let out = '';
  for (let at = 0; at < bytes.length; at += 4) {
    let value = 0;
    for (let i = 0; i < 4; i++) value = value * 256 + (bytes[at + i] ?? 0);
    const digits: string[] = [];
    for (let i = 0; i < 5; i++) {
      digits.unshift(BASE85[value % 85] as string);
      value = Math.floor(value / 85);
    }
    out += digits.join('');
  }
  return out;
}
