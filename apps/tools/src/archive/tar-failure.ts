import { displayName } from '../workspace/display-name';
import { MAX_NAME_BYTES, MAX_PATH_BYTES } from '../workspace/path-syntax';
import { ArchiveUnreadable } from './archive-unreadable';
import { EntryRejected } from './entry-policy';

/** What node-tar attaches to the errors it emits (see its `warn`). */
interface TarErrorFields {
  code?: string;
  tarCode?: string;
  header?: { path?: string; type?: string; linkpath?: string; cksumValid?: boolean };
  entry?: { path?: string };
  maxDepth?: number;
}

/**
 * node-tar's error as a sentence naming the entry: its messages are a code and a few words
 * (`TAR_ENTRY_INVALID: checksum failure`), or an fs error carrying the server's absolute path.
 * `lastEntry` is the last entry read, to say where a nameless failure happened.
 */
export function tarFailure(error: Error, lastEntry?: string): EntryRejected | ArchiveUnreadable {
  const fields = error as Error & TarErrorFields;
  const entry = fields.entry?.path;
  const options = { cause: error };
  if (fields.tarCode === 'TAR_ENTRY_INVALID') {
    return new ArchiveUnreadable(`the archive is corrupt (${invalidHeader(fields.header, lastEntry)})`, options);
  }
  if (fields.tarCode === 'TAR_BAD_ARCHIVE') {
    if (entry === undefined) return new ArchiveUnreadable('the upload is not a tar archive', options);
    return new ArchiveUnreadable(`the archive is truncated (entry '${displayName(entry)}' ends early)`, options);
  }
  if (fields.tarCode === 'TAR_ENTRY_ERROR' && entry !== undefined) return new EntryRejected(entry, unpackReason(fields), options);
  return new ArchiveUnreadable(`the archive could not be read${after(lastEntry)}`, options);
}

function invalidHeader(header: TarErrorFields['header'], lastEntry?: string): string {
  if (!header) return `an unreadable header${after(lastEntry)}`;
  const name = header.path ? `entry '${displayName(header.path)}'` : undefined;
  if (header.cksumValid === false) return `checksum failure at ${name ?? `the entry${after(lastEntry)}`}`;
  if (!name) return `an entry without a name${after(lastEntry)}`;
  if (header.linkpath) return `${name} is not a link but names a link target`;
  return `${name} is a link without a target`;
}

/** fs and node-tar codes of a failed entry, as what went wrong with it. */
const UNPACK_REASONS = new Map([
  ['ENAMETOOLONG', `has a path too long for the filesystem (a name can be at most ${MAX_NAME_BYTES} bytes, a whole path at most ${MAX_PATH_BYTES})`],
  ['TAR_SYMLINK_ERROR', 'would be written through a symbolic link'],
  ['ENOTDIR', 'would be written under a file, as if that file were a folder'],
  ['EEXIST', 'clashes with another entry of the same name'],
  ['EISDIR', 'clashes with another entry of the same name'],
]);

function unpackReason({ code, maxDepth }: TarErrorFields): string {
  if (typeof maxDepth === 'number') return `is nested deeper than ${maxDepth} folders`;
  return (code === undefined ? undefined : UNPACK_REASONS.get(code)) ?? 'could not be unpacked';
}

function after(lastEntry?: string): string {
  return lastEntry === undefined ? '' : ` after entry '${displayName(lastEntry)}'`;
}
