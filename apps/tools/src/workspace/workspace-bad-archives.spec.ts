import { mkdtemp, readFile, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { AppError, ErrorCode } from '@weft/contracts';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FixtureEntry, gnuLongName, paxHeader, tarGz, tarOf } from '../testing/tar-fixtures';
import { WorkspaceService } from './workspace.service';
import { WorkspaceStore } from './workspace-store';

const id = 'ws_badarchive01';
const b64 = (buffer: Buffer) => buffer.toString('base64');

/** Archives a probe sent: each is refused in words naming the entry, and nothing of it stays. */
describe('WorkspaceService with archives that hold bad names', () => {
  let base: string;
  let workspacesDir: string;
  let service: WorkspaceService;

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'weft-bad-archive-')));
    workspacesDir = join(base, 'workspaces');
    service = new WorkspaceService(new WorkspaceStore(workspacesDir), { maxBytes: 1000, maxEntries: 50 }, pino({ level: 'silent' }));
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  async function rejection(archive: Buffer, workspaceId = id): Promise<AppError> {
    const error = await service.create({ workspaceId, archiveBase64: b64(archive) }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: ErrorCode.ArchiveRejected });
    const { message } = error as AppError;
    expect(message).not.toContain(base);
    expect(message).not.toMatch(/TAR_|ENAMETOOLONG|EEXIST/);
    expect(message.length).toBeLessThan(700);
    return error as AppError;
  }

  async function workspaces(): Promise<string[]> {
    return (await readdir(workspacesDir).catch(() => [])).filter((name) => name.startsWith('ws_'));
  }

  it.each<[string, FixtureEntry[], RegExp]>([
    ['a pax path', [paxHeader({ path: 'good.txt\0../../evil' }), { path: 'x', content: 'hi' }], /^Archive rejected: entry 'good\.txt\\0\.\.\/\.\.\/evil' has a NUL byte in its name/],
    ['a GNU long name', [gnuLongName('long\0name'), { path: 'y', content: 'hi' }], /^Archive rejected: entry 'long\\0name' has a NUL byte in its name/],
    [
      'a pax link target',
      [paxHeader({ linkpath: 'a\0/etc/passwd' }), { path: 'l', type: 'SymbolicLink', linkpath: 'a' }],
      /^Archive rejected: entry 'l' has a NUL byte in its link target/,
    ],
  ])('refuses a NUL byte in %s, naming the entry escaped, and unpacks nothing', async (_where, entries, message) => {
    const error = await rejection(tarGz(entries));
    expect(error.message).toMatch(message);
    expect(await workspaces()).toEqual([]);
  });

  it('leaves an existing workspace of the same id untouched', async () => {
    await service.create({ workspaceId: id, archiveBase64: b64(tarGz([{ path: 'keep.txt', content: 'mine' }])) });
    await rejection(tarGz([paxHeader({ path: 'keep.txt\0x' }), { path: 'keep.txt', content: 'overwritten' }]));
    expect(await readFile(join(workspacesDir, id, 'keep.txt'), 'utf8')).toBe('mine');
    expect(await readdir(join(workspacesDir, id))).toEqual(['keep.txt']);
  });

  it('refuses a 10,000-character name in words, shortened, with no host path', async () => {
    const error = await rejection(tarGz([paxHeader({ path: `src/${'n'.repeat(10_000)}` }), { path: 'short', content: 'x' }]));
    expect(error.message).toMatch(/^Archive rejected: entry 'src\/n{196}… \(10004 characters\)' has a path the filesystem cannot hold/);
    expect(error.message).toContain('at most 255 bytes');
    expect(error.details).toMatchObject({ entry: expect.stringMatching(/^src\/n+… \(10004 characters\)$/) });
    expect(await workspaces()).toEqual([]);
  });

  it('refuses a path that only the workspace root makes too long, naming it, and leaves nothing behind', async () => {
    const deep = Array.from({ length: 16 }, (_, i) => String(i).padStart(253, 'd')).join('/');
    const error = await rejection(tarGz([paxHeader({ path: deep }), { path: 'short', content: 'x' }]));
    expect(error.message).toMatch(/^Archive rejected: entry 'd{200}… \(4063 characters\)' has a path too long for the filesystem/);
    expect(await workspaces()).toEqual([]);
  });

  it('refuses a link into its own path before unpacking, which would otherwise never end', async () => {
    const error = await rejection(tarGz([{ path: 'f', content: 'x' }, { path: 'loop', type: 'SymbolicLink', linkpath: 'loop/f' }]));
    expect(error.message).toBe("Archive rejected: entry 'loop' has a link target 'loop/f' that lies inside its own path or holds it");
    expect(await workspaces()).toEqual([]);
  });

  it('removes what was unpacked only once tar has stopped writing, after an entry it failed midway', async () => {
    // A file whose header names a link target: tar fails it, then goes on with the entries after it.
    const rest = Array.from({ length: 40 }, (_, i): FixtureEntry => ({ path: `d${i % 4}/f${i}.txt`, content: 'x' }));
    const error = await rejection(tarGz([paxHeader({ linkpath: '/' }), { path: 'a', content: '' }, ...rest]));
    expect(error.message).toBe("Archive rejected: the archive could not be read after entry 'a'");
    expect(await workspaces()).toEqual([]);
  });

  it('says a corrupt header is a checksum failure at the entry it names', async () => {
    const tar = tarOf([{ path: 'a.txt', content: 'hello' }]);
    tar[0] = 'b'.charCodeAt(0); // the name changes, the checksum does not
    const error = await rejection(gzipSync(tar));
    expect(error.message).toBe("Archive rejected: the archive is corrupt (checksum failure at entry 'b.txt')");
  });

  it('names the entry that takes an upload past the owner\'s quota', async () => {
    const archive = tarGz([
      { path: 'a.txt', content: 'x'.repeat(300) },
      { path: 'big/b.bin', content: 'y'.repeat(300) },
    ]);
    const error = await service.create({ workspaceId: id, archiveBase64: b64(archive), maxBytes: 500 }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: ErrorCode.PayloadTooLarge,
      message: "The archive unpacks to 600 bytes; your workspace quota has 500 bytes left (entry 'big/b.bin' takes it past the quota)",
      details: { entry: 'big/b.bin' },
    });
  });
});
