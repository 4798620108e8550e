import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, mkdtemp, readFile, readdir, readlink, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode } from '@weft/contracts';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FixtureEntry, tarGz } from '../testing/tar-fixtures';
import { WorkspaceService } from './workspace.service';
import { WorkspaceStore } from './workspace-store';

const id = 'ws_syncsync0001';
const b64 = (entries: FixtureEntry[]) => tarGz(entries).toString('base64');
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('WorkspaceService manifest and sync', () => {
  let base: string;
  let root: string;
  let service: WorkspaceService;

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'weft-ws-sync-')));
    service = new WorkspaceService(new WorkspaceStore(join(base, 'workspaces')), { maxBytes: 10_000, maxEntries: 50 }, pino({ level: 'silent' }));
    await service.create({
      workspaceId: id,
      archiveBase64: b64([
        { path: 'src/app.py', content: 'print("hello")\n' },
        { path: 'src/util.py', content: 'x = 1\n' },
        { path: 'run.sh', content: '#!/bin/sh\n', mode: 0o755 },
        { path: 'docs/old.md', content: 'old\n' },
        { path: 'README.md', content: '# app\n' },
        { path: 'latest', type: 'SymbolicLink', linkpath: 'src/app.py' },
        { path: '.weft/settings.json', content: '{}' },
      ]),
    });
    root = join(base, 'workspaces', id);
    // What code run in the workspace leaves behind and a sync must not touch.
    await mkdir(join(root, 'node_modules/pkg'), { recursive: true });
    await writeFile(join(root, 'node_modules/pkg/index.js'), 'module.exports = 1;\n');
  });

  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  const tree = async () => (await service.manifest(id)).entries;
  const leftovers = async () => (await readdir(join(base, 'workspaces', '.weft-staging')).catch(() => [])).length;

  it('lists files with size, SHA-256 and executable bit, links with their target, and folders, without .git or node_modules', async () => {
    await mkdir(join(root, '.git'));
    await writeFile(join(root, '.git/HEAD'), 'ref: refs/heads/main\n');
    const entries = await tree();
    expect(entries.map((e) => e.path).sort()).toEqual(
      ['.weft', '.weft/settings.json', 'README.md', 'docs', 'docs/old.md', 'latest', 'run.sh', 'src', 'src/app.py', 'src/util.py'].sort(),
    );
    expect(entries).toContainEqual({ path: 'src/app.py', type: 'file', size: 15, sha256: sha('print("hello")\n'), executable: false });
    expect(entries).toContainEqual({ path: 'run.sh', type: 'file', size: 10, sha256: sha('#!/bin/sh\n'), executable: true });
    expect(entries).toContainEqual({ path: 'latest', type: 'symlink', target: 'src/app.py' });
    expect(entries).toContainEqual({ path: 'docs', type: 'directory' });
  });

  it('writes changed and new files, removes gone files and folders, and leaves the rest (node_modules too) alone', async () => {
    const result = await service.sync({
      workspaceId: id,
      archiveBase64: b64([
        { path: 'src/app.py', content: 'print("hello, world")\n' },
        { path: 'src/new/mod.py', content: 'y = 2\n' },
        { path: 'empty/', type: 'Directory' },
        { path: 'latest', type: 'SymbolicLink', linkpath: 'src/util.py' },
      ]),
      deleted: ['docs', 'README.md'],
    });
    expect(result).toMatchObject({ written: 3, deleted: 2, overwritten: [] });
    expect(await readFile(join(root, 'src/app.py'), 'utf8')).toBe('print("hello, world")\n');
    expect(await readFile(join(root, 'src/new/mod.py'), 'utf8')).toBe('y = 2\n');
    expect(await readFile(join(root, 'src/util.py'), 'utf8')).toBe('x = 1\n');
    expect(await readlink(join(root, 'latest'))).toBe('src/util.py');
    expect((await lstat(join(root, 'empty'))).isDirectory()).toBe(true);
    await expect(lstat(join(root, 'docs'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(lstat(join(root, 'README.md'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(join(root, 'node_modules/pkg/index.js'), 'utf8')).toBe('module.exports = 1;\n');
    expect(await leftovers()).toBe(0);
    // The export patch now starts from the synced files.
    expect((await service.exportPatch(id)).patch).toBe('');
  });

  it("names the workspace's own changes that the folder's version replaced or removed", async () => {
    await writeFile(join(root, 'src/util.py'), 'x = 42  # the agent\n');
    await writeFile(join(root, 'docs/agent-notes.md'), 'notes\n');
    const result = await service.sync({ workspaceId: id, archiveBase64: b64([{ path: 'src/util.py', content: 'x = 1\n' }, { path: 'README.md', content: '# app v2\n' }]), deleted: ['docs'] });
    expect(result.overwritten).toEqual(['docs', 'src/util.py']);
    expect(await readFile(join(root, 'src/util.py'), 'utf8')).toBe('x = 1\n');
  });

  it('replaces a link planted where the folder has a folder, never writing through it', async () => {
    const outside = join(base, 'outside');
    await mkdir(outside);
    await rm(join(root, 'src'), { recursive: true });
    await symlink(outside, join(root, 'src'));
    await service.sync({ workspaceId: id, archiveBase64: b64([{ path: 'src/app.py', content: 'mine\n' }]), deleted: [] });
    expect(await readdir(outside)).toEqual([]);
    expect((await lstat(join(root, 'src'))).isDirectory()).toBe(true);
    expect(await readFile(join(root, 'src/app.py'), 'utf8')).toBe('mine\n');
  });

  it('takes a removed path literally: through a link it names nothing, and nothing outside is touched', async () => {
    const outside = join(base, 'outside');
    await mkdir(outside);
    await writeFile(join(outside, 'keep.txt'), 'keep');
    await symlink(outside, join(root, 'out'));
    const result = await service.sync({ workspaceId: id, deleted: ['out/keep.txt', 'README.md'] });
    expect(result).toMatchObject({ deleted: 1 });
    expect(await readFile(join(outside, 'keep.txt'), 'utf8')).toBe('keep');
    expect(await readlink(join(root, 'out'))).toBe(outside);
  });

  it('rejects a link that leaves the workspace through one already there, and undoes the whole sync', async () => {
    await symlink('/etc', join(root, 'sys'));
    const before = await tree();
    const error = await service
      .sync({ workspaceId: id, archiveBase64: b64([{ path: 'src/app.py', content: 'new\n' }, { path: 'README.md/inner.txt', content: 'a file became a folder' }, { path: 'pw', type: 'SymbolicLink', linkpath: 'sys/passwd' }]), deleted: ['docs'] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.ArchiveRejected, message: expect.stringContaining("'pw'") });
    expect(await tree()).toEqual(before);
    expect(await readFile(join(root, 'docs/old.md'), 'utf8')).toBe('old\n');
    expect(await readFile(join(root, 'README.md'), 'utf8')).toBe('# app\n');
  });

  it.each<[string, FixtureEntry[]]>([
    ['a tar-slip entry', [{ path: '../evil', content: 'x' }]],
    ['a link to an absolute path', [{ path: 'etc', type: 'SymbolicLink', linkpath: '/etc' }]],
    ['a FIFO', [{ path: 'pipe', type: 'FIFO' }]],
    ['an entry under node_modules', [{ path: 'node_modules/pkg/index.js', content: 'evil' }]],
    ['.weft as a link', [{ path: '.weft', type: 'SymbolicLink', linkpath: 'src' }]],
  ])('rejects an archive with %s and changes nothing', async (_name, entries) => {
    const before = await tree();
    await expect(service.sync({ workspaceId: id, archiveBase64: b64([{ path: 'README.md', content: 'x' }, ...entries]), deleted: ['docs'] })).rejects.toMatchObject({
      code: ErrorCode.ArchiveRejected,
    });
    expect(await tree()).toEqual(before);
    expect(await leftovers()).toBe(0);
  });

  it.each([['../etc/passwd'], ['/etc/passwd'], ['a/./b'], ['.git/config'], ['src/node_modules'], ['.weft/settings.json'], ['.weft']])('refuses to remove %s', async (path) => {
    await expect(service.sync({ workspaceId: id, deleted: [path] })).rejects.toMatchObject({ code: expect.stringMatching(/INVALID_PATH|OUTSIDE/) });
    expect(await readFile(join(root, '.weft/settings.json'), 'utf8')).toBe('{}');
  });

  it('undoes a sync that grows the workspace past what the quota leaves it, but lets one that shrinks it through', async () => {
    const before = await tree();
    const big = 'x'.repeat(2000);
    const error = await service.sync({ workspaceId: id, archiveBase64: b64([{ path: 'big.txt', content: big }]), deleted: ['docs'], maxBytes: 1000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.PayloadTooLarge, message: expect.stringContaining('nothing was changed') });
    expect(await tree()).toEqual(before);
    expect(await service.sync({ workspaceId: id, deleted: ['docs'], maxBytes: 10 })).toMatchObject({ deleted: 1 });
  });

  it('keeps the executable bit of a written file', async () => {
    await service.sync({ workspaceId: id, archiveBase64: b64([{ path: 'tool.sh', content: '#!/bin/sh\necho hi\n', mode: 0o755 }]), deleted: [] });
    expect((await tree()).find((e) => e.path === 'tool.sh')).toMatchObject({ executable: true });
    await chmod(join(root, 'tool.sh'), 0o644);
    expect((await tree()).find((e) => e.path === 'tool.sh')).toMatchObject({ executable: false });
  });
});
