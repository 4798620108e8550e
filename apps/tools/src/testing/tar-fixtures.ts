import { gzipSync } from 'node:zlib';
import { Header, type types } from 'tar';

type EntryTypeName = types.EntryTypeName;

/** Entries whose body describes the next entry: sized by their content, like files. */
const META_TYPES = new Set<EntryTypeName>(['ExtendedHeader', 'GlobalExtendedHeader', 'NextFileHasLongPath', 'NextFileHasLongLinkpath']);

export interface FixtureEntry {
  path: string;
  type?: EntryTypeName;
  content?: string;
  linkpath?: string;
  /** Declared size when it should differ from the content (a lying header). */
  size?: number;
  mode?: number;
}

/**
 * Writes tar headers by hand so tests can build archives no well-behaved tool would produce:
 * absolute paths, `..`, devices, links that leave the root.
 */
export function tarGz(entries: FixtureEntry[]): Buffer {
  return gzipSync(tarOf(entries));
}

export function tarOf(entries: FixtureEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.content ?? '', 'utf8');
    const type = entry.type ?? 'File';
    const header = new Header({
      path: entry.path,
      type,
      linkpath: entry.linkpath,
      size: entry.size ?? (type === 'File' || META_TYPES.has(type) ? body.length : 0),
      mode: entry.mode ?? (type === 'Directory' ? 0o755 : 0o644),
      mtime: new Date(0),
      uid: 1000,
      gid: 1000,
    });
    header.encode();
    if (!header.block) throw new Error('header did not encode');
    blocks.push(header.block);
    if (body.length > 0) blocks.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

/** A pax extended header (`x`) whose records (`path`, `linkpath`…) apply to the entry after it. */
export function paxHeader(records: Record<string, string>): FixtureEntry {
  return { path: 'PaxHeader/entry', type: 'ExtendedHeader', content: Object.entries(records).map(([key, value]) => paxRecord(key, value)).join('') };
}

/** A GNU long-name entry (`L`) naming the entry after it, NUL-terminated as GNU tar writes it. */
export function gnuLongName(name: string): FixtureEntry {
  return { path: '././@LongLink', type: 'NextFileHasLongPath', content: `${name}\0` };
}

/** `<length> <key>=<value>\n`, where the length counts itself. */
function paxRecord(key: string, value: string): string {
  const rest = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(rest);
  while (String(length).length + Buffer.byteLength(rest) !== length) length++;
  return `${length}${rest}`;
}
