import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceFolders } from './workspace-folders';

describe('WorkspaceFolders', () => {
  let state: string;
  beforeEach(async () => {
    state = await mkdtemp(join(tmpdir(), 'weft-cli-state-'));
  });
  afterEach(async () => {
    await rm(state, { recursive: true, force: true });
  });

  it('remembers where each workspace came from, and the newest upload of a folder', async () => {
    const folders = new WorkspaceFolders({ XDG_STATE_HOME: state });
    await folders.remember('ws_old', '/src/app', new Date('2026-01-01T00:00:00Z'));
    await folders.remember('ws_new', '/src/app', new Date('2026-02-01T00:00:00Z'));
    await folders.remember('ws_api', '/src/api', new Date('2026-03-01T00:00:00Z'));

    const again = new WorkspaceFolders({ XDG_STATE_HOME: state });
    expect(again.path).toBe(join(state, 'weft', 'workspaces.json'));
    expect(await again.folderOf('ws_old')).toBe('/src/app');
    expect(await again.latestFrom('/src/app')).toBe('ws_new');
    expect(await again.latestFrom('/elsewhere')).toBeUndefined();
    await again.forget('ws_new');
    expect(await again.latestFrom('/src/app')).toBe('ws_old');
  });

  it('keeps the newest uploads only, and starts afresh from a file that is not its own', async () => {
    const folders = new WorkspaceFolders({ XDG_STATE_HOME: state }, 3);
    for (let i = 0; i < 4; i++) await folders.remember(`ws_${i}`, '/src', new Date(Date.UTC(2026, 0, 1, 0, 0, i)));
    expect(await folders.folderOf('ws_0')).toBeUndefined();
    expect(await folders.folderOf('ws_1')).toBe('/src');
    expect(await folders.folderOf('ws_3')).toBe('/src');

    await mkdir(join(state, 'weft'), { recursive: true });
    await writeFile(folders.path, '{ not json');
    expect(await folders.folderOf('ws_1')).toBeUndefined();
    await folders.remember('ws_x', '/src');
    expect(await folders.folderOf('ws_x')).toBe('/src');
  });

  it('lists the uploads of a folder newest first, each with the gateway and user it belongs to when known', async () => {
    const folders = new WorkspaceFolders({ XDG_STATE_HOME: state });
    const ada = { gateway: 'http://gw:8080', userId: 'usr_ada' };
    await folders.remember('ws_legacy', '/src/app', new Date('2026-01-01T00:00:00Z'));
    await folders.remember('ws_ada', '/src/app', new Date('2026-02-01T00:00:00Z'), ada);
    await folders.remember('ws_other', '/src/api', new Date('2026-03-01T00:00:00Z'), ada);
    expect(await folders.uploadsFrom('/src/app')).toEqual([
      { workspaceId: 'ws_ada', uploadedAt: '2026-02-01T00:00:00.000Z', owner: ada },
      { workspaceId: 'ws_legacy', uploadedAt: '2026-01-01T00:00:00.000Z' },
    ]);
    // Synced again: it becomes the folder's newest.
    await folders.remember('ws_legacy', '/src/app', new Date('2026-04-01T00:00:00Z'), ada);
    expect((await folders.uploadsFrom('/src/app')).map((u) => u.workspaceId)).toEqual(['ws_legacy', 'ws_ada']);
    expect(await folders.latestFrom('/src/app')).toBe('ws_legacy');
  });
});
