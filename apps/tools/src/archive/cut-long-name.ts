import { EntryRejected } from './entry-policy';

/** A long name (pax record or GNU `L`/`K` entry) holding a NUL byte, which tar would cut there. */
export interface CutLongName {
  /** `long name`: a GNU long path or long link target (the body does not say which). */
  field: 'path' | 'linkpath' | 'long name';
  /** The name whole, NUL and all. */
  value: string;
}

const PAX_RECORD_START = /^\d+ [^\s=]+=/;

/**
 * tar takes a name longer than its header's 100 bytes from a meta entry read just before (a pax
 * `path` or `linkpath` record, or a GNU long name) and silently drops everything from the first
 * NUL byte. This sees the meta entry's body whole, as the parser's `meta` event hands it over,
 * and finds a name that would be cut.
 */
export function findCutLongName(meta: string): CutLongName | null {
  if (PAX_RECORD_START.test(meta)) return paxNameWithNul(meta);
  // GNU long names end in NULs that are not part of the name.
  const name = meta.replace(/\0+$/, '');
  return name.includes('\0') ? { field: 'long name', value: name } : null;
}

/** The refusal, naming the entry where it is known (a cut link target belongs to the entry after it). */
export function cutLongNameRejected(cut: CutLongName, entryPath?: string): EntryRejected {
  if (cut.field === 'linkpath' && entryPath !== undefined) {
    return new EntryRejected(entryPath, 'has a NUL byte in its link target; tar would silently cut the target there');
  }
  return new EntryRejected(cut.value, `has a NUL byte in its ${cut.field === 'linkpath' ? 'link target' : 'name'}; tar would silently cut it there`);
}

/**
 * Reads the records line by line and length-checked, the way tar reads them (a record tar
 * skips cannot cut a name), and other keys may hold binary values (xattrs) with NULs.
 */
function paxNameWithNul(meta: string): CutLongName | null {
  for (const line of meta.replace(/\n$/, '').split('\n')) {
    const length = parseInt(line, 10);
    if (length !== Buffer.byteLength(line) + 1) continue;
    const [key, ...value] = line.slice(`${length} `.length).split('=');
    const joined = value.join('=');
    if ((key === 'path' || key === 'linkpath') && joined.includes('\0')) return { field: key, value: joined };
  }
  return null;
}
