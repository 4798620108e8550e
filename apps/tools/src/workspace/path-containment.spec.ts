import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ErrorCode } from '@weft/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isInside, resolveInside } from './path-containment';

describe('path containment', () => {
  let base: string;
  let root: string;

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'weft-contain-')));
    root = join(base, 'ws');
    await mkdir(join(root, 'src', 'lib'), { recursive: true });
    await writeFile(join(root, 'src', 'index.ts'), 'export {};');
    await mkdir(join(base, 'ws-evil'));
    await writeFile(join(base, 'ws-evil', 'secret'), 'secret');
    await writeFile(join(base, 'outside.txt'), 'outside');
  });

  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  const refusedWith = async (path: string, code: string) =>
    expect(resolveInside(root, path)).rejects.toMatchObject({ code });

  it('resolves an existing file inside the root', async () => {
    expect(await resolveInside(root, 'src/index.ts')).toEqual({ real: join(root, 'src/index.ts'), exists: true, danglingLink: false });
  });

  it('resolves "." and an empty-ish path to the root', async () => {
    expect((await resolveInside(root, '.')).real).toBe(root);
    expect((await resolveInside(root, './src/../')).real).toBe(root);
  });

  it('reports a missing path inside the root as not existing', async () => {
    expect(await resolveInside(root, 'src/new/file.ts')).toMatchObject({ real: join(root, 'src/new/file.ts'), exists: false });
  });

  it('allows .. that stays inside the root', async () => {
    expect((await resolveInside(root, 'src/lib/../index.ts')).real).toBe(join(root, 'src/index.ts'));
  });

  it('refuses an absolute path', async () => {
    await refusedWith('/etc/passwd', ErrorCode.PathOutsideWorkspace);
    await refusedWith(join(root, 'src/index.ts'), ErrorCode.PathOutsideWorkspace);
  });

  it('refuses a .. escape, also through a missing folder', async () => {
    await refusedWith('../outside.txt', ErrorCode.PathOutsideWorkspace);
    await refusedWith('src/../../outside.txt', ErrorCode.PathOutsideWorkspace);
    await refusedWith('nope/../../outside.txt', ErrorCode.PathOutsideWorkspace);
  });

  it('does not take a sibling sharing the root as prefix for the root', async () => {
    expect(isInside(root, `${root}-evil/secret`)).toBe(false);
    expect(isInside(root, join(root, 'a'))).toBe(true);
    await refusedWith(`../${basename(root)}-evil/secret`, ErrorCode.PathOutsideWorkspace);
  });

  it('refuses a symlink leaf that leaves the workspace', async () => {
    await symlink('../outside.txt', join(root, 'leak'));
    await refusedWith('leak', ErrorCode.PathOutsideWorkspace);
  });

  it('refuses a symlinked parent folder that leaves the workspace', async () => {
    await symlink(join(base, 'ws-evil'), join(root, 'src', 'evil'));
    await refusedWith('src/evil/secret', ErrorCode.PathOutsideWorkspace);
    await refusedWith('src/evil/new-file', ErrorCode.PathOutsideWorkspace);
  });

  it('follows a symlink that stays inside', async () => {
    await symlink('src/lib', join(root, 'lib'));
    await symlink('../index.ts', join(root, 'src', 'lib', 'up'));
    expect((await resolveInside(root, 'lib/up')).real).toBe(join(root, 'src/index.ts'));
  });

  it('refuses a chain whose parts look harmless alone (t -> ., s -> t/..)', async () => {
    await symlink('.', join(root, 't'));
    await symlink('t/..', join(root, 's'));
    await refusedWith('s/outside.txt', ErrorCode.PathOutsideWorkspace);
  });

  it('accepts an absolute symlink into the root and refuses one elsewhere', async () => {
    await symlink(join(root, 'src'), join(root, 'abs-in'));
    await symlink(join(base, 'ws-evil'), join(root, 'abs-out'));
    expect((await resolveInside(root, 'abs-in/index.ts')).real).toBe(join(root, 'src/index.ts'));
    await refusedWith('abs-out/secret', ErrorCode.PathOutsideWorkspace);
  });

  it('marks a dangling symlink as such', async () => {
    await symlink('missing.txt', join(root, 'dangling'));
    expect(await resolveInside(root, 'dangling')).toEqual({ real: join(root, 'missing.txt'), exists: false, danglingLink: true });
  });

  it('refuses a dangling symlink whose target would be outside', async () => {
    await symlink('../created-outside.txt', join(root, 'dangling'));
    await refusedWith('dangling', ErrorCode.PathOutsideWorkspace);
  });

  it('refuses a path that goes through a file', async () => {
    await refusedWith('src/index.ts/x', ErrorCode.NotADirectory);
  });

  it('refuses a symlink loop', async () => {
    await symlink('b', join(root, 'a'));
    await symlink('a', join(root, 'b'));
    await refusedWith('a', ErrorCode.PathOutsideWorkspace);
  });

  it('refuses a NUL byte', async () => {
    await refusedWith('src/index.ts\0.png', ErrorCode.InvalidPath);
  });

  it('refuses a name longer than 255 bytes before looking at the disk', async () => {
    await refusedWith(`src/${'x'.repeat(256)}`, ErrorCode.InvalidPath);
  });
});
