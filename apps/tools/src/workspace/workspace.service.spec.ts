import { lstat, mkdtemp, readFile, readdir, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { AppError, ErrorCode } from '@weft/contracts';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FixtureEntry, tarGz, tarOf } from '../testing/tar-fixtures';
import { makeFolder, removeInside } from './safe-fs';
import { WorkspaceService } from './workspace.service';
import { WorkspaceStore } from './workspace-store';

const id = 'ws_archive0001';
const b64 = (buffer: Buffer) => buffer.toString('base64');

describe('WorkspaceService', () => {
  let base: string;
  let workspacesDir: string;
  let service: WorkspaceService;

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'weft-ws-')));
    workspacesDir = join(base, 'workspaces');
    service = new WorkspaceService(new WorkspaceStore(workspacesDir), { maxBytes: 1000, maxEntries: 10 }, pino({ level: 'silent' }));
  });

  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  const createFrom = (entries: FixtureEntry[]) => service.create({ workspaceId: id, archiveBase64: b64(tarGz(entries)) });

  async function expectRejected(work: Promise<unknown>, entryName: string | RegExp) {
    const error = await work.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe(ErrorCode.ArchiveRejected);
    expect((error as AppError).message).toMatch(entryName);
    expect(await readdir(workspacesDir).catch(() => [])).toEqual([]);
    expect((await readdir(base)).filter((name) => name !== 'workspaces')).toEqual([]);
  }

  it('creates an empty workspace, and refuses the same id twice', async () => {
    expect(await service.create({ workspaceId: id })).toEqual({ files: 0, bytes: 0 });
    await expect(service.create({ workspaceId: id })).rejects.toMatchObject({ code: ErrorCode.Conflict });
  });

  it('unpacks files, folders and links that stay inside', async () => {
    const totals = await createFrom([
      { path: 'src/', type: 'Directory' },
      { path: 'src/index.ts', content: 'export {};' },
      { path: 'README.md', content: '# hi' },
      { path: 'node_modules/.bin/tool', type: 'SymbolicLink', linkpath: '../../src/index.ts' },
      { path: 'copy.md', type: 'Link', linkpath: 'README.md' },
    ]);
    expect(totals).toEqual({ files: 3, bytes: 14 });
    const root = join(workspacesDir, id);
    expect(await readFile(join(root, 'node_modules/.bin/tool'), 'utf8')).toBe('export {};');
    expect((await stat(join(root, 'copy.md'))).nlink).toBe(2);
  });

  it.each<[string, FixtureEntry[], RegExp]>([
    ['a tar-slip entry', [{ path: '../evil', content: 'x' }], /'\.\.\/evil'/],
    ['a nested tar-slip entry', [{ path: 'a/../../evil', content: 'x' }], /a\/\.\.\/\.\.\/evil/],
    ['an absolute entry', [{ path: '/tmp/evil', content: 'x' }], /'\/tmp\/evil'.*absolute/],
    ['a symlink to an absolute path', [{ path: 'etc', type: 'SymbolicLink', linkpath: '/etc' }], /'etc'.*absolute/],
    ['a symlink that climbs out', [{ path: 'a/up', type: 'SymbolicLink', linkpath: '../../..' }], /'a\/up'.*outside/],
    ['a hard link out', [{ path: 'passwd', type: 'Link', linkpath: '/etc/passwd' }], /'passwd'/],
    ['a hard link with ..', [{ path: 'h', type: 'Link', linkpath: '../x' }], /'h'/],
    ['a character device', [{ path: 'null', type: 'CharacterDevice' }], /'null'.*character device/],
    ['a block device', [{ path: 'sda', type: 'BlockDevice' }], /'sda'.*block device/],
    ['a FIFO', [{ path: 'pipe', type: 'FIFO' }], /'pipe'.*FIFO/],
    [
      'a file under a symlink of the archive',
      [
        { path: 'link', type: 'SymbolicLink', linkpath: 'real' },
        { path: 'link/file', content: 'x' },
      ],
      /'link\/file'.*symbolic link/,
    ],
    [
      'a hard link through a symlink',
      [
        { path: 't', type: 'SymbolicLink', linkpath: '.' },
        { path: 'h', type: 'Link', linkpath: 't/x' },
      ],
      /'h'/,
    ],
    ['too many bytes', [{ path: 'big', content: 'x'.repeat(1001) }], /'big'.*1000 bytes/],
    ['too many entries', Array.from({ length: 11 }, (_, i) => ({ path: `f${i}`, content: '' })), /10 entries/],
  ])('rejects %s and leaves nothing behind', async (_name, entries, message) => {
    await expectRejected(createFrom(entries), message);
  });

  it('rejects a chain of links that escapes only when followed on disk', async () => {
    await expectRejected(
      createFrom([
        { path: 't', type: 'SymbolicLink', linkpath: '.' },
        { path: 's', type: 'SymbolicLink', linkpath: 't/..' },
      ]),
      /'s'.*outside/,
    );
  });

  it('rejects an upload that is not gzip, a corrupt gzip, and a corrupt tar', async () => {
    await expectRejected(service.create({ workspaceId: id, archiveBase64: b64(tarOf([{ path: 'a' }])) }), /not a gzip/);
    await expectRejected(service.create({ workspaceId: id, archiveBase64: b64(Buffer.from('hello')) }), /not a gzip/);
    const truncated = tarGz([{ path: 'a', content: 'x'.repeat(300) }]).subarray(0, 20);
    await expectRejected(service.create({ workspaceId: id, archiveBase64: b64(truncated) }), /gzip|corrupt/);
    await expectRejected(service.create({ workspaceId: id, archiveBase64: b64(gzipSync(Buffer.alloc(600, 7))) }), /corrupt/);
  });

  it('rejects a decompression bomb before reading it all', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    await expectRejected(service.create({ workspaceId: id, archiveBase64: b64(bomb) }), /unpacks to more than/);
  });

  it('drops set-id bits from unpacked files', async () => {
    await createFrom([{ path: 'run.sh', content: '#!/bin/sh', mode: 0o4755 }]);
    const mode = (await lstat(join(workspacesDir, id, 'run.sh'))).mode;
    expect(mode & 0o7777).toBe(0o755);
  });

  describe('readPath', () => {
    beforeEach(async () => {
      await createFrom([{ path: 'src/a.txt', content: 'hello' }]);
    });

    it('returns a file as base64 and a folder as entries', async () => {
      expect(await service.readPath(id, 'src/a.txt')).toEqual({
        kind: 'file',
        size: 5,
        contentBase64: Buffer.from('hello').toString('base64'),
      });
      expect(await service.readPath(id, '')).toEqual({ kind: 'directory', entries: [{ name: 'src', type: 'directory', size: 0 }] });
    });

    it('throws typed errors for a missing path, an escape and a missing workspace', async () => {
      await expect(service.readPath(id, 'nope')).rejects.toMatchObject({ code: ErrorCode.FileNotFound });
      await expect(service.readPath(id, '../../etc/passwd')).rejects.toMatchObject({ code: ErrorCode.PathOutsideWorkspace });
      await symlink('/etc', join(workspacesDir, id, 'etc'));
      await expect(service.readPath(id, 'etc/passwd')).rejects.toMatchObject({ code: ErrorCode.PathOutsideWorkspace });
      await expect(service.readPath('ws_nothere000', '')).rejects.toMatchObject({ code: ErrorCode.WorkspaceNotFound });
    });

    it('answers a name over 255 bytes, and a path only the root makes too long, with TOOLS.INVALID_PATH', async () => {
      await expect(service.readPath(id, `src/${'n'.repeat(256)}`)).rejects.toMatchObject({ code: ErrorCode.InvalidPath });
      const root = join(workspacesDir, id);
      const deep = Array.from({ length: 16 }, (_, i) => String(i).padStart(253, 'd')).join('/');
      await makeFolder(root, join(root, deep));
      try {
        const error = await service.readPath(id, deep).catch((e: unknown) => e);
        expect(error).toMatchObject({ code: ErrorCode.InvalidPath, message: expect.stringContaining('is too long for the filesystem') });
        expect((error as Error).message).not.toContain(base);
      } finally {
        await removeInside(root, join(root, deep.split('/')[0] ?? ''), true);
      }
    });
  });

  it('exports a workspace that unpacks to the same files', async () => {
    await createFrom([
      { path: 'src/a.txt', content: 'hello' },
      { path: 'link', type: 'SymbolicLink', linkpath: 'src/a.txt' },
    ]);
    const { archiveBase64 } = await service.export(id);
    await writeFile(join(base, 'out.tgz'), Buffer.from(archiveBase64, 'base64'));
    const copy = new WorkspaceService(new WorkspaceStore(join(base, 'copy')), { maxBytes: 1000, maxEntries: 10 }, pino({ level: 'silent' }));
    expect(await copy.create({ workspaceId: id, archiveBase64 })).toEqual({ files: 1, bytes: 5 });
    expect(await readFile(join(base, 'copy', id, 'link'), 'utf8')).toBe('hello');
  });
});
