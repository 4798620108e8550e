import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { list } from 'tar';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPatch } from './apply-patch';
import { packPaths } from './archive';
import { GitCli } from './git';
import { ProjectFiles } from './project-files';

/** A Python and Rust project as a developer's checkout holds it, caches and installs included. */
const TREE: Record<string, string> = {
  '.gitignore': '.venv/\ntarget/\n*.log\n',
  'src/app.py': 'print("hi")\n',
  'src/test_app.py': 'def test(): pass\n',
  'src/debug.log': 'noise\n',
  'src/keep/.gitignore': '!important.log\n',
  'src/keep/important.log': 'kept\n',
  '.pytest_cache/.gitignore': '# Created by pytest automatically.\n*\n',
  '.pytest_cache/v/cache/lastfailed': '{}\n',
  '.venv/bin/python': '#!/bin/sh\n',
  '.venv/lib/site.py': 'x = 1\n',
  'target/debug/app': 'ELF\n',
  'node_modules/left-pad/index.js': 'module.exports = 1;\n',
  'secrets/token.txt': 'hunter2\n',
  '.weftignore': 'secrets/\n',
};

/** What an upload of TREE holds, in a git repository or not. */
const PROJECT = [
  '.gitignore',
  '.weftignore',
  'src',
  'src/app.py',
  'src/keep',
  'src/keep/.gitignore',
  'src/keep/important.log',
  'src/test_app.py',
];

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function project(files: Record<string, string> = TREE): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'weft-project-'));
  folders.push(dir);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir, encoding: 'utf8' });
}

async function gitProject(): Promise<string> {
  const dir = await project();
  git(dir, 'init', '-q');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'start');
  return dir;
}

describe('the files of a project an upload sends', () => {
  it("uploads none of a git repository's ignored caches, installs and build output", async () => {
    const dir = await gitProject();
    const files = await ProjectFiles.open(dir);
    const selection = await files.select();

    expect(files.usesGit).toBe(true);
    expect(selection.entries.map((entry) => entry.path)).toEqual(PROJECT);
    expect(selection.leftOut).toEqual(expect.arrayContaining(['.pytest_cache/', '.venv/', 'target/', 'src/debug.log', 'secrets/token.txt']));
  });

  it("honours the repository's info/exclude, and keeps a tracked file that an ignore rule matches", async () => {
    const dir = await gitProject();
    await writeFile(join(dir, 'notes.md'), 'mine\n');
    await writeFile(join(dir, '.git/info/exclude'), 'notes.md\n');
    await writeFile(join(dir, 'build.log'), 'tracked on purpose\n');
    git(dir, 'add', '-f', 'build.log');

    const paths = (await (await ProjectFiles.open(dir)).select()).entries.map((entry) => entry.path);
    expect(paths).toContain('build.log');
    expect(paths).not.toContain('notes.md');
  });

  it('reads the .gitignore files of a folder that is not a git repository the same way', async () => {
    const dir = await project();
    const files = await ProjectFiles.open(dir);
    const selection = await files.select();

    expect(files.usesGit).toBe(false);
    expect(selection.entries.map((entry) => entry.path)).toEqual(PROJECT);
    expect(selection.leftOut).toEqual(expect.arrayContaining(['.pytest_cache/', '.venv/', 'target/', 'src/debug.log', 'secrets/']));
  });

  it('packs exactly the selection', async () => {
    const dir = await gitProject();
    const selection = await (await ProjectFiles.open(dir)).select();
    const archive = join(dir, '..', `${dir.split('/').at(-1)}.tgz`);
    folders.push(archive);
    await writeFile(archive, await packPaths(dir, selection.entries.map((entry) => entry.path)));

    const packed: string[] = [];
    await list({ file: archive, onReadEntry: (entry) => packed.push(entry.path.replace(/\/$/, '')) });
    expect(packed).toEqual(PROJECT);
  });

  it('says which paths a workspace holds that the folder ignores, existing here or not', async () => {
    for (const dir of [await gitProject(), await project()]) {
      const ignored = await (await ProjectFiles.open(dir)).ignored(['.venv/', 'target/release/app', 'src/new.py', 'src/new.log', 'node_modules/x/y.js', 'src/keep/important.log']);
      expect([...ignored].sort()).toEqual(['.venv/', 'node_modules/x/y.js', 'src/new.log', 'target/release/app']);
    }
  });
});

describe('weft apply and ignored paths', () => {
  const PATCH = [
    'diff --git a/src/app.py b/src/app.py',
    '--- a/src/app.py',
    '+++ b/src/app.py',
    '@@ -1 +1 @@',
    '-print("hi")',
    '+print("hello")',
    'diff --git a/.pytest_cache/v/cache/nodeids b/.pytest_cache/v/cache/nodeids',
    'new file mode 100644',
    '--- /dev/null',
    '+++ b/.pytest_cache/v/cache/nodeids',
    '@@ -0,0 +1 @@',
    '+[]',
    '',
  ].join('\n');

  it('writes the project files of the patch and none of the ignored ones', async () => {
    const dir = await gitProject();
    const files = await ProjectFiles.open(dir);
    const result = await applyPatch(new GitCli(dir), PATCH, { ignored: (paths) => files.ignored(paths) });

    expect(result).toMatchObject({ kind: 'applied', leftOut: ['.pytest_cache/v/cache/nodeids'] });
    expect(await readFile(join(dir, 'src/app.py'), 'utf8')).toBe('print("hello")\n');
    await expect(stat(join(dir, '.pytest_cache/v/cache/nodeids'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('leaves ignored paths out when the folder is below the top of its repository', async () => {
    const top = await project({ '.gitignore': '.pytest_cache/\n', 'pkg/src/app.py': 'print("hi")\n' });
    git(top, 'init', '-q');
    git(top, 'add', '.');
    git(top, 'commit', '-qm', 'start');
    const dir = join(top, 'pkg');
    const files = await ProjectFiles.open(dir);
    const result = await applyPatch(new GitCli(dir), PATCH, { ignored: (paths) => files.ignored(paths) });

    expect(result).toMatchObject({ kind: 'applied', leftOut: ['.pytest_cache/v/cache/nodeids'] });
    expect(await readFile(join(dir, 'src/app.py'), 'utf8')).toBe('print("hello")\n');
    await expect(stat(join(dir, '.pytest_cache'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
