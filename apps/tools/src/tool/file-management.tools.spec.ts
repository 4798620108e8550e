import { access, lstat, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode } from '@weft/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ToolHarness, createToolHarness } from '../testing/tool-harness';

describe('create_directory, move_file, delete_file', () => {
  let h: ToolHarness;
  const exists = (path: string) => access(join(h.root, path)).then(() => true, () => false);

  beforeEach(async () => {
    h = await createToolHarness();
    await h.files({ 'a.txt': 'a', 'dir/inner.txt': 'i', 'link': { link: 'a.txt' } });
  });
  afterEach(() => h.cleanup());

  it('creates a folder with its parents, and accepts one that exists', async () => {
    expect((await h.call('create_directory', { path: 'x/y/z' })).output).toBe("Created folder 'x/y/z'");
    expect((await lstat(join(h.root, 'x/y/z'))).isDirectory()).toBe(true);
    expect((await h.call('create_directory', { path: 'x/y' })).output).toBe("'x/y' already exists");
    expect(await h.call('create_directory', { path: 'a.txt' })).toMatchObject({ errorCode: ErrorCode.NotADirectory });
    expect(await h.call('create_directory', { path: 'a.txt/sub' })).toMatchObject({ errorCode: ErrorCode.NotADirectory });
  });

  it('moves a file into a new folder and refuses to overwrite unless asked', async () => {
    expect((await h.call('move_file', { from: 'a.txt', to: 'new/b.txt' })).output).toBe("Moved 'a.txt' to 'new/b.txt'");
    expect(await readFile(join(h.root, 'new/b.txt'), 'utf8')).toBe('a');
    await h.files({ 'c.txt': 'c' });
    expect(await h.call('move_file', { from: 'c.txt', to: 'new/b.txt' })).toMatchObject({ errorCode: ErrorCode.Conflict });
    expect((await h.call('move_file', { from: 'c.txt', to: 'new/b.txt', overwrite: true })).isError).toBe(false);
    expect(await readFile(join(h.root, 'new/b.txt'), 'utf8')).toBe('c');
  });

  it('moves a link as a link and refuses to move a folder into itself', async () => {
    await h.call('move_file', { from: 'link', to: 'link2' });
    expect((await lstat(join(h.root, 'link2'))).isSymbolicLink()).toBe(true);
    expect(await h.call('move_file', { from: 'dir', to: 'dir/sub/dir' })).toMatchObject({ errorCode: ErrorCode.ValidationFailed });
    expect(await h.call('move_file', { from: 'missing', to: 'x' })).toMatchObject({ errorCode: ErrorCode.FileNotFound });
    expect(await h.call('move_file', { from: 'a.txt', to: 'dir' })).toMatchObject({ errorCode: ErrorCode.Conflict });
  });

  it('refuses a move that would make a link point outside the workspace, and allows one that keeps it inside', async () => {
    await h.files({ 'sub/up': { link: '../a.txt' }, 'pkg/deep/up': { link: '../../a.txt' } });
    const escaping = await h.call('move_file', { from: 'sub/up', to: 'up' });
    expect(escaping).toMatchObject({ errorCode: ErrorCode.PathOutsideWorkspace });
    expect(escaping.output).toContain("would make it point outside the workspace ('../a.txt'); nothing was moved");
    expect((await lstat(join(h.root, 'sub/up'))).isSymbolicLink()).toBe(true);
    expect(await exists('up')).toBe(false);
    // The folder carries its link up one level: `../../a.txt` from `deep/up` leaves the root.
    const folder = await h.call('move_file', { from: 'pkg/deep', to: 'deep' });
    expect(folder).toMatchObject({ errorCode: ErrorCode.PathOutsideWorkspace });
    expect(folder.output).toContain("the link 'pkg/deep/up'");
    expect(await exists('pkg/deep/up')).toBe(true);
    // One level down, the same link still lands inside.
    expect((await h.call('move_file', { from: 'sub', to: 'x/sub' })).isError).toBe(false);
    expect((await lstat(join(h.root, 'x/sub/up'))).isSymbolicLink()).toBe(true);
  });

  it('deletes a file, a link (not its target), and a folder only when recursive', async () => {
    expect((await h.call('delete_file', { path: 'link' })).output).toBe("Deleted 'link'");
    expect(await exists('a.txt')).toBe(true);
    expect(await h.call('delete_file', { path: 'dir' })).toMatchObject({ errorCode: ErrorCode.ValidationFailed });
    expect((await h.call('delete_file', { path: 'dir', recursive: true })).output).toBe("Deleted folder 'dir'");
    expect(await exists('dir')).toBe(false);
    await mkdir(join(h.root, 'empty'));
    expect((await h.call('delete_file', { path: 'empty' })).isError).toBe(false);
    expect(await h.call('delete_file', { path: 'a.txt/..' })).toMatchObject({ errorCode: ErrorCode.NotAFile });
    expect(await h.call('delete_file', { path: '.' })).toMatchObject({ errorCode: ErrorCode.NotAFile });
  });
});
