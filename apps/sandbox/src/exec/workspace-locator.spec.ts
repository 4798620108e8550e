import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseCwd, WorkspaceLocator } from './workspace-locator';

const WS = 'ws_locator01';

describe('normaliseCwd', () => {
  it.each([
    [undefined, ''],
    ['.', ''],
    ['src/', 'src'],
    ['a/../b', 'b'],
    ['./a//b', 'a/b'],
  ])('normalises %s to %s', (input, expected) => {
    expect(normaliseCwd(input)).toBe(expected);
  });

  it.each(['/etc', '..', '../other', 'a/../../b'])('rejects %s as leaving the workspace', (cwd) => {
    expect(() => normaliseCwd(cwd)).toThrow(expect.objectContaining({ code: ErrorCode.PathOutsideWorkspace }));
  });
});

describe('WorkspaceLocator', () => {
  let dir: string;
  const volumes: string[] = [];
  const runtime = {
    volumeMountpoint: async (name: string) => {
      volumes.push(name);
      return `/var/lib/docker/volumes/${name}/_data`;
    },
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-locator-'));
    await mkdir(join(dir, WS, 'src'), { recursive: true });
    await symlink('/etc', join(dir, WS, 'escape'));
    await symlink('/', join(dir, 'ws_rootlink0'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('uses WORKSPACES_HOST_DIR when set', async () => {
    const locator = new WorkspaceLocator({ WORKSPACES_DIR: dir, WORKSPACES_HOST_DIR: '/host/ws' }, runtime);
    await expect(locator.locate(WS, 'src')).resolves.toEqual({ hostPath: `/host/ws/${WS}`, cwd: 'src' });
  });

  it('looks up the named volume mountpoint once', async () => {
    const locator = new WorkspaceLocator({ WORKSPACES_DIR: dir, WORKSPACES_VOLUME: 'weft_ws' }, runtime);
    await locator.locate(WS);
    const found = await locator.locate(WS);
    expect(found.hostPath).toBe(`/var/lib/docker/volumes/weft_ws/_data/${WS}`);
    expect(volumes).toEqual(['weft_ws']);
  });

  it('falls back to WORKSPACES_DIR when the worker runs on the host', async () => {
    const locator = new WorkspaceLocator({ WORKSPACES_DIR: dir }, runtime);
    await expect(locator.locate(WS)).resolves.toEqual({ hostPath: `${dir}/${WS}`, cwd: '' });
  });

  it('rejects a workspace that does not exist', async () => {
    const locator = new WorkspaceLocator({ WORKSPACES_DIR: dir }, runtime);
    await expect(locator.locate('ws_missing00')).rejects.toMatchObject({ code: ErrorCode.WorkspaceNotFound });
  });

  it('rejects a workspace whose root is a symlink, so the engine never mounts its target', async () => {
    const locator = new WorkspaceLocator({ WORKSPACES_DIR: dir }, runtime);
    await expect(locator.locate('ws_rootlink0')).rejects.toMatchObject({ code: ErrorCode.WorkspaceNotFound });
  });

  it('rejects a symlinked cwd that leaves the workspace', async () => {
    const locator = new WorkspaceLocator({ WORKSPACES_DIR: dir }, runtime);
    await expect(locator.locate(WS, 'escape')).rejects.toMatchObject({ code: ErrorCode.PathOutsideWorkspace });
  });

  it('rejects a cwd that is not a directory', async () => {
    const locator = new WorkspaceLocator({ WORKSPACES_DIR: dir }, runtime);
    await expect(locator.locate(WS, 'nope')).rejects.toMatchObject({ code: ErrorCode.NotADirectory });
  });
});
