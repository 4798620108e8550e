import { lstat, mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError, ErrorCode } from '@weft/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsFailure } from './fs-failure';

async function failureOf(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => null,
    (error: unknown) => error,
  );
}

describe('fsFailure', () => {
  let root: string;

  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'weft-fs-failure-')));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('turns ENAMETOOLONG into TOOLS.INVALID_PATH naming the workspace path, never the host one', async () => {
    await mkdir(join(root, 'src'));
    const error = await failureOf(lstat(join(root, 'src', 'n'.repeat(300))));
    const mapped = fsFailure(error, root);
    expect(mapped).toBeInstanceOf(AppError);
    expect(mapped).toMatchObject({ code: ErrorCode.InvalidPath });
    expect(mapped?.message).toMatch(/^'src\/n{196}… \(304 characters\)' is too long for the filesystem/);
    expect(mapped?.message).not.toContain(root);
  });

  it('names only the entry of a pinned descriptor path', async () => {
    const pinned = await failureOf(lstat(`/proc/self/fd/999999/${'q'.repeat(5)}/x`));
    expect(fsFailure(pinned, root)).toMatchObject({ code: ErrorCode.FileNotFound, message: "No file or folder at 'qqqqq/x'" });
  });

  it('calls a full disk WORKSPACE.DISK_FULL, retryable, without the server\'s path', () => {
    const full = Object.assign(new Error(`ENOSPC: no space left on device, write '${root}/a'`), { code: 'ENOSPC', path: `${root}/a` });
    const mapped = fsFailure(full, root);
    expect(mapped).toMatchObject({ code: ErrorCode.WorkspaceDiskFull, retryable: true });
    expect(mapped?.message).toContain("The server's workspace disk is full");
    expect(mapped?.message).not.toContain(root);
  });

  it('leaves failures of the server itself, paths outside the workspace and anything else untyped', () => {
    const broken = Object.assign(new Error(`EIO: i/o error, write '${root}/a'`), { code: 'EIO', path: `${root}/a` });
    expect(fsFailure(broken, root)).toBeUndefined();
    expect(fsFailure(new AppError(ErrorCode.NotAFile, 'x'), root)).toBeUndefined();
    expect(fsFailure('ENOENT', root)).toBeUndefined();
    const outside = Object.assign(new Error('ENOENT: no such file or directory, lstat \'/etc/weft\''), { code: 'ENOENT', path: '/etc/weft' });
    expect(fsFailure(outside, root)).toBeUndefined();
    const noBinary = Object.assign(new Error('spawn rg ENOENT'), { code: 'ENOENT', path: 'rg', syscall: 'spawn rg' });
    expect(fsFailure(noBinary, root)).toBeUndefined();
  });
});
