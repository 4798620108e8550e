import { execFileSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readFile, readdir, readlink, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError, ErrorCode, type GitSource } from '@weft/contracts';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceService } from '../workspace/workspace.service';
import { WorkspaceStore } from '../workspace/workspace-store';
import { CloneFailed, GitCloner } from './git-cloner';
import { GitImporter } from './git-importer';

const id = 'ws_gitimport01';
const log = pino({ level: 'silent' });

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=Weft Test', '-c', 'user.email=test@weft.invalid', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    stdio: 'ignore',
  });
}

/** A bare repository with `main` and `feature` branches, built from the given files. */
async function bareRepo(base: string, name: string, files: Record<string, string | { link: string }>): Promise<string> {
  const work = join(base, `${name}-work`);
  await mkdir(work);
  git(work, 'init', '-q');
  for (const [path, value] of Object.entries(files)) {
    await mkdir(join(work, path, '..'), { recursive: true });
    if (typeof value === 'string') await writeFile(join(work, path), value);
    else await symlink(value.link, join(work, path));
  }
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'first');
  git(work, 'checkout', '-q', '-b', 'feature');
  await writeFile(join(work, 'feature.txt'), 'on the branch\n');
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'feature');
  git(work, 'checkout', '-q', 'main');
  const bare = join(base, `${name}.git`);
  git(base, 'clone', '-q', '--bare', work, bare);
  return bare;
}

describe('workspace import from git', () => {
  let base: string;
  let workspacesDir: string;
  let repo: string;

  const serviceWith = (allowedHosts: string[], maxBytes = 100_000, logger = log) => {
    const store = new WorkspaceStore(workspacesDir);
    const limits = { maxBytes, maxEntries: 100 };
    const settings = { allowedHosts, cloneTimeoutMs: 20_000, workspacesDir };
    return new WorkspaceService(store, limits, logger, new GitImporter(store, new GitCloner(), limits, settings, logger));
  };
  const failure = (work: Promise<unknown>) => work.then(() => null, (e: unknown) => e as AppError);
  const workspaces = async () => (await readdir(workspacesDir).catch(() => [])).filter((n) => !n.startsWith('.'));

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'weft-git-')));
    workspacesDir = join(base, 'workspaces');
    repo = await bareRepo(base, 'project', { 'README.md': '# project\n', 'src/index.ts': 'export const x = 1;\n', 'docs/link.md': { link: '../README.md' } });
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it('clones the default branch over file:// without .git, links kept, and snapshots it for the patch', async () => {
    const service = serviceWith(['file']);
    expect(await service.create({ workspaceId: id, git: { url: `file://${repo}` } })).toEqual({ files: 2, bytes: expect.any(Number) });
    const root = join(workspacesDir, id);
    expect((await readdir(root)).sort()).toEqual(['README.md', 'docs', 'src']);
    expect(await readlink(join(root, 'docs/link.md'))).toBe('../README.md');

    await writeFile(join(root, 'src/index.ts'), 'export const x = 2;\n');
    const { patch } = await service.exportPatch(id);
    expect(patch).toContain('-export const x = 1;\n+export const x = 2;');
    expect(patch).not.toContain('README.md');
  });

  it('clones the named ref', async () => {
    await serviceWith(['file']).create({ workspaceId: id, git: { url: `file://${repo}`, ref: 'feature' } });
    expect(await readFile(join(workspacesDir, id, 'feature.txt'), 'utf8')).toBe('on the branch\n');
  });

  it.each([
    ['a host not on the list', ['github.com'], 'https://evil.example/x.git', /'evil.example' is not allowed/],
    ['file:// unless `file` is listed', ['github.com'], 'file:///tmp/x.git', /'file' is not allowed/],
    ['everything when the list is empty', [], 'https://github.com/x/y.git', /disabled/],
  ])('refuses %s, before running git', async (_name, hosts, url, message) => {
    const error = await failure(serviceWith(hosts).create({ workspaceId: id, git: { url } }));
    expect(error).toMatchObject({ code: ErrorCode.Forbidden });
    expect(error?.message).toMatch(message);
    expect(await workspaces()).toEqual([]);
  });

  it('rejects a repository holding a link out of the workspace and leaves nothing behind', async () => {
    const evil = await bareRepo(base, 'evil', { 'ok.txt': 'ok', 'passwd': { link: '/etc/passwd' } });
    const error = await failure(serviceWith(['file']).create({ workspaceId: id, git: { url: `file://${evil}` } }));
    expect(error).toMatchObject({ code: ErrorCode.ArchiveRejected, message: expect.stringMatching(/passwd.*outside/) });
    expect(await workspaces()).toEqual([]);
    expect(await readdir(join(workspacesDir, '.weft-staging'))).toEqual([]);
  });

  it('rejects a repository past the size cap, and one past the quota left with 413', async () => {
    const big = await bareRepo(base, 'big', { 'big.bin': 'x'.repeat(5000) });
    expect(await failure(serviceWith(['file'], 1000).create({ workspaceId: id, git: { url: `file://${big}` } }))).toMatchObject({
      code: ErrorCode.ArchiveRejected,
    });
    expect(await failure(serviceWith(['file']).create({ workspaceId: id, git: { url: `file://${big}` }, maxBytes: 100 }))).toMatchObject({
      code: ErrorCode.PayloadTooLarge,
    });
    expect(await workspaces()).toEqual([]);
  });

  it('turns a failed clone (unknown ref) into a rejection naming git\'s reason', async () => {
    const error = await failure(serviceWith(['file']).create({ workspaceId: id, git: { url: `file://${repo}`, ref: 'nope' } }));
    expect(error).toMatchObject({ code: ErrorCode.ArchiveRejected, message: expect.stringContaining('nope') });
    expect(await workspaces()).toEqual([]);
  });

  it('refuses an existing workspace id', async () => {
    const service = serviceWith(['file']);
    await service.create({ workspaceId: id, git: { url: `file://${repo}` } });
    expect(await failure(service.create({ workspaceId: id, git: { url: `file://${repo}` } }))).toMatchObject({ code: ErrorCode.Conflict });
  });
});

describe('GitCloner', () => {
  it('lets git itself refuse file:// unless allowed', async () => {
    const base = await realpath(await mkdtemp(join(tmpdir(), 'weft-git-')));
    try {
      const repo = await bareRepo(base, 'r', { 'a.txt': 'a' });
      const source: GitSource = { url: `file://${repo}` };
      const error = await new GitCloner().clone(source, join(base, 'out'), { allowFile: false, timeoutMs: 20_000 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CloneFailed);
      expect((await lstat(join(base, 'out')).catch(() => null))).toBeNull();
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});
