import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, type ToolCallRequest } from '@weft/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceStore } from '../workspace/workspace-store';
import { RipgrepAdapter } from '../search/ripgrep.adapter';
import { ToolRegistry } from './tool-registry';

const workspaceId = 'ws_tooltest01';

describe('file tools', () => {
  let base: string;
  let root: string;
  let registry: ToolRegistry;

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'weft-tools-')));
    const store = new WorkspaceStore(join(base, 'workspaces'));
    root = await store.create(workspaceId);
    registry = new ToolRegistry(store, { readFileMaxBytes: 1024, outputMaxBytes: 2048 }, new RipgrepAdapter());
    await writeFile(join(base, 'outside.txt'), 'do not touch');
  });

  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  const call = (tool: ToolCallRequest['tool'], args: Record<string, unknown>) =>
    registry.call({ workspaceId, tool, arguments: args } as ToolCallRequest);

  it('writes a file, creating its parents, and reads it back', async () => {
    expect(await call('write_file', { path: 'src/deep/a.ts', content: 'héllo' })).toEqual({
      isError: false,
      output: "Created 'src/deep/a.ts' (6 bytes)",
    });
    expect(await call('read_file', { path: 'src/deep/a.ts' })).toEqual({ isError: false, output: '1\théllo' });
    expect((await call('write_file', { path: 'src/deep/a.ts', content: 'x' })).output).toMatch(/^Replaced/);
    expect(await readFile(join(root, 'src/deep/a.ts'), 'utf8')).toBe('x');
  });

  it('returns a missing file as an error result the model can read', async () => {
    expect(await call('read_file', { path: 'nope.txt' })).toEqual({
      isError: true,
      errorCode: ErrorCode.FileNotFound,
      output: "No file at 'nope.txt'",
    });
  });

  it('refuses to read a folder and points to list_directory', async () => {
    await mkdir(join(root, 'src'));
    const result = await call('read_file', { path: 'src' });
    expect(result).toMatchObject({ isError: true, errorCode: ErrorCode.NotAFile });
    expect(result.output).toContain('list_directory');
  });

  it('refuses a binary file politely', async () => {
    await writeFile(join(root, 'img.png'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    await writeFile(join(root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect(await call('read_file', { path: 'img.png' })).toMatchObject({ isError: true, errorCode: ErrorCode.BinaryFile });
    expect(await call('read_file', { path: 'latin1.txt' })).toMatchObject({ isError: true, errorCode: ErrorCode.BinaryFile });
  });

  it('refuses a file over the read cap and says how big it is', async () => {
    await writeFile(join(root, 'big.txt'), 'a'.repeat(1025));
    const result = await call('read_file', { path: 'big.txt' });
    expect(result).toMatchObject({ isError: true, errorCode: ErrorCode.FileTooLarge });
    expect(result.output).toContain('1025 bytes');
  });

  it('does not hang on a FIFO', async () => {
    execFileSync('mkfifo', [join(root, 'pipe')]);
    expect(await call('read_file', { path: 'pipe' })).toMatchObject({ isError: true, errorCode: ErrorCode.NotAFile });
    expect(await call('write_file', { path: 'pipe', content: 'x' })).toMatchObject({ isError: true, errorCode: ErrorCode.NotAFile });
  });

  it.each([
    ['../outside.txt'],
    ['/etc/passwd'],
    ['src/../../outside.txt'],
  ])('refuses to read or write %s', async (path) => {
    expect(await call('read_file', { path })).toMatchObject({ isError: true, errorCode: ErrorCode.PathOutsideWorkspace });
    expect(await call('write_file', { path, content: 'pwned' })).toMatchObject({
      isError: true,
      errorCode: ErrorCode.PathOutsideWorkspace,
    });
    expect(await readFile(join(base, 'outside.txt'), 'utf8')).toBe('do not touch');
  });

  it('refuses to write through a symlink that leaves the workspace', async () => {
    await symlink(join(base, 'outside.txt'), join(root, 'leaf'));
    await symlink(base, join(root, 'dir'));
    expect(await call('write_file', { path: 'leaf', content: 'pwned' })).toMatchObject({ isError: true });
    expect(await call('write_file', { path: 'dir/new.txt', content: 'pwned' })).toMatchObject({ isError: true });
    expect(await readFile(join(base, 'outside.txt'), 'utf8')).toBe('do not touch');
    expect(await readdir(base)).not.toContain('new.txt');
  });

  it('refuses to write through a dangling symlink', async () => {
    await symlink('target-missing.txt', join(root, 'dangling'));
    expect(await call('write_file', { path: 'dangling', content: 'x' })).toMatchObject({
      isError: true,
      errorCode: ErrorCode.NotAFile,
    });
    expect(await readdir(root)).not.toContain('target-missing.txt');
  });

  it('lists one level, sorted, with kinds and sizes', async () => {
    await writeFile(join(root, 'b.txt'), '12345');
    await mkdir(join(root, 'a-dir', 'nested'), { recursive: true });
    await symlink('b.txt', join(root, 'c-link'));
    expect(await call('list_directory', { path: '.' })).toEqual({
      isError: false,
      output: 'a-dir/\nb.txt (5 bytes)\nc-link@ (symbolic link)',
    });
    expect((await call('list_directory', {})).output).toContain('b.txt');
    expect((await call('list_directory', { path: 'a-dir' })).output).toBe('nested/');
  });

  it('refuses to list a file or a missing folder', async () => {
    await writeFile(join(root, 'f.txt'), 'x');
    expect(await call('list_directory', { path: 'f.txt' })).toMatchObject({ isError: true, errorCode: ErrorCode.NotADirectory });
    expect(await call('list_directory', { path: 'nope' })).toMatchObject({ isError: true, errorCode: ErrorCode.FileNotFound });
  });

  it('truncates long output in one place with a visible marker', async () => {
    await Promise.all(Array.from({ length: 200 }, (_, i) => writeFile(join(root, `file-${i}.txt`), '')));
    const result = await call('list_directory', { path: '.' });
    expect(Buffer.byteLength(result.output)).toBeLessThan(2200);
    expect(result.output).toMatch(/\[output truncated: showed \d+ of \d+ bytes\]$/);
  });

  it('returns bad arguments as an error result', async () => {
    expect(await call('read_file', { path: '' })).toMatchObject({ isError: true, errorCode: ErrorCode.ValidationFailed });
  });

  it('throws for a workspace that does not exist', async () => {
    await expect(
      registry.call({ workspaceId: 'ws_missing000', tool: 'read_file', arguments: { path: 'a' } }),
    ).rejects.toMatchObject({ code: ErrorCode.WorkspaceNotFound });
  });
});
