import { execFileSync } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, readdir, readlink, realpath, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportPatch } from './patch-exporter';

const limits = { maxFileBytes: 64 * 1024, maxPatchBytes: 1024 * 1024, maxEntries: 10_000 };

/** Every file under `dir` with its content (links as `-> target`), .git left out. */
async function tree(dir: string, prefix = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.name === '.git') continue;
    if (entry.isDirectory()) Object.assign(out, await tree(dir, path));
    else if (entry.isSymbolicLink()) out[path] = `-> ${await readlink(join(dir, path))}`;
    else out[path] = (await readFile(join(dir, path))).toString('base64');
  }
  return out;
}

describe('exportPatch', () => {
  let base: string;
  let original: string;
  let work: string;

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'weft-patch-')));
    original = join(base, 'original');
    work = join(base, 'work');
    await mkdir(join(original, 'src'), { recursive: true });
    await writeFile(join(original, 'src/app.py'), 'def main():\n    return 1\n');
    await writeFile(join(original, 'README.md'), '# Demo\n');
    await writeFile(join(original, 'old.txt'), 'bye\n');
    await writeFile(join(original, 'no-newline.txt'), 'a\nb');
    await writeFile(join(original, 'logo.bin'), Buffer.from([0, 1, 2, 3, 255]));
    await writeFile(join(original, 'run.sh'), 'echo hi\n');
    await writeFile(join(original, '.gitignore'), 'build/\n');
    await cp(original, work, { recursive: true, verbatimSymlinks: true });
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  async function applyWithGit(patch: string): Promise<string> {
    const fresh = join(base, 'fresh');
    await cp(original, fresh, { recursive: true, verbatimSymlinks: true });
    execFileSync('git', ['init', '-q'], { cwd: fresh });
    await writeFile(join(base, 'change.patch'), patch);
    execFileSync('git', ['apply', '--check', join(base, 'change.patch')], { cwd: fresh });
    execFileSync('git', ['apply', join(base, 'change.patch')], { cwd: fresh });
    return fresh;
  }

  it('is empty when nothing changed', async () => {
    expect(await exportPatch(original, work, limits)).toEqual({ patch: '', files: 0, omitted: [] });
  });

  it('carries new, modified, deleted, binary, mode and link changes that git apply reproduces', async () => {
    await writeFile(join(work, 'src/app.py'), 'def main():\n    return 2\n');
    await mkdir(join(work, 'src/lib'));
    await writeFile(join(work, 'src/lib/new file.py'), 'X = 1\n');
    await writeFile(join(work, 'tëst "q".txt'), 'unicode name\n');
    await unlink(join(work, 'old.txt'));
    await writeFile(join(work, 'no-newline.txt'), 'a\nc');
    await writeFile(join(work, 'logo.bin'), Buffer.from([0, 9, 9, 255, 1, 2]));
    await writeFile(join(work, 'new.bin'), Buffer.from([0, 0, 7]));
    await writeFile(join(work, 'empty.txt'), '');
    await chmod(join(work, 'run.sh'), 0o755);
    await symlink('src/app.py', join(work, 'app-link'));
    await mkdir(join(work, 'build'));
    await writeFile(join(work, 'build/out.js'), 'ignored');
    await mkdir(join(work, '.git'));
    await writeFile(join(work, '.git/HEAD'), 'never in a patch');

    const { patch, files } = await exportPatch(original, work, limits);
    expect(patch).toContain('diff --git a/old.txt b/old.txt\ndeleted file mode 100644');
    expect(patch).toContain('old mode 100644\nnew mode 100755');
    expect(patch).toContain('GIT binary patch');
    expect(patch).toContain('new file mode 120000');
    expect(patch).not.toContain('build/out.js');
    expect(patch).not.toContain('.git/HEAD');
    expect(files).toBe(10);

    const fresh = await applyWithGit(patch);
    const expected = await tree(work);
    delete expected['build/out.js'];
    expect(await tree(fresh)).toEqual(expected);
    expect(execFileSync('stat', ['-c', '%a', join(fresh, 'run.sh')]).toString().trim()).toBe('755');
  });

  it('applies with patch -p1 when the change is text only', async () => {
    await writeFile(join(work, 'src/app.py'), 'def main():\n    return 3\n');
    await writeFile(join(work, 'added.txt'), 'new\n');
    const { patch } = await exportPatch(original, work, limits);
    const fresh = join(base, 'fresh-p1');
    await cp(original, fresh, { recursive: true });
    execFileSync('patch', ['-p1', '--quiet'], { cwd: fresh, input: patch });
    expect(await readFile(join(fresh, 'src/app.py'), 'utf8')).toBe('def main():\n    return 3\n');
    expect(await readFile(join(fresh, 'added.txt'), 'utf8')).toBe('new\n');
  });

  it('names a changed file too large to include instead of diffing it', async () => {
    await writeFile(join(work, 'huge.txt'), 'x'.repeat(limits.maxFileBytes + 1));
    await writeFile(join(work, 'README.md'), '# Demo 2\n');
    const result = await exportPatch(original, work, limits);
    expect(result.omitted).toEqual(['huge.txt']);
    expect(result.patch.startsWith('# Weft: too large to include')).toBe(true);
    await applyWithGit(result.patch);
  });
});
