import { describe, expect, it } from 'vitest';
import { Parser } from 'tar';
import { tarOf } from '../testing/tar-fixtures';
import { ArchiveUnreadable } from './archive-unreadable';
import { EntryRejected } from './entry-policy';
import { tarFailure } from './tar-failure';

const HOST = '/var/lib/weft/workspaces/ws_abcdefgh1234';

/** An error the way node-tar's `warn` builds it in strict mode: the fs error with its data merged in. */
function unpackError(code: string, entry: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(`${code}: something happened, open '${HOST}/${entry}'`), {
    code,
    tarCode: 'TAR_ENTRY_ERROR',
    entry: { path: entry },
    path: `${HOST}/${entry}`,
    ...extra,
  });
}

/** The error tar's own parser emits for `tar` in strict mode. */
function parserError(tar: Buffer): Promise<Error> {
  return new Promise((resolve) => {
    const parser = new Parser({ strict: true, onReadEntry: (entry) => entry.resume() });
    parser.on('error', resolve);
    parser.end(tar);
  });
}

describe('tarFailure', () => {
  it.each([
    ['ENAMETOOLONG', /^entry 'src\/x\.ts' has a path too long for the filesystem/],
    ['TAR_SYMLINK_ERROR', /^entry 'src\/x\.ts' would be written through a symbolic link$/],
    ['ENOTDIR', /^entry 'src\/x\.ts' would be written under a file/],
    ['EIO', /^entry 'src\/x\.ts' could not be unpacked$/],
  ])('names the entry for %s, in words, with no host path or code', (code, message) => {
    const failure = tarFailure(unpackError(code, 'src/x.ts'));
    expect(failure).toBeInstanceOf(EntryRejected);
    expect(failure.message).toMatch(message);
    expect(failure.message).not.toContain(HOST);
  });

  it("words node-tar's depth limit", () => {
    expect(tarFailure(unpackError('TAR_ENTRY_ERROR', 'a/b', { depth: 1100, maxDepth: 1024 })).message).toBe(
      "entry 'a/b' is nested deeper than 1024 folders",
    );
  });

  it('says where a corrupt header is: at the entry it names, or after the last good one', async () => {
    const tar = tarOf([
      { path: 'ok.txt', content: 'fine' },
      { path: 'bad.txt', content: 'x' },
    ]);
    tar[1024] = 'B'.charCodeAt(0); // the second header's name, without its checksum
    const failure = tarFailure(await parserError(tar), 'ok.txt');
    expect(failure).toBeInstanceOf(ArchiveUnreadable);
    expect(failure.message).toBe("the archive is corrupt (checksum failure at entry 'Bad.txt')");
  });

  it('says what a link header lacks', async () => {
    const tar = tarOf([{ path: 'l', type: 'SymbolicLink' }]);
    expect(tarFailure(await parserError(tar)).message).toBe("the archive is corrupt (entry 'l' is a link without a target)");
  });

  it('falls back to a sentence, not the library message, for anything else', () => {
    const odd = Object.assign(new Error('TAR_ABORT: zlib: invalid'), { tarCode: 'TAR_ABORT' });
    expect(tarFailure(odd, 'a.txt').message).toBe("the archive could not be read after entry 'a.txt'");
  });
});
