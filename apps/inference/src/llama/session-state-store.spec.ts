import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@weft/logging';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ABANDONED_AFTER_MS, removeAbandoned, SessionStateStore } from './session-state-store';

const log = createLogger('kv-test', 'silent');
const write = (content: string) => async (path: string) => {
  await writeFile(path, content);
  return { fileSize: content.length };
};

describe('SessionStateStore in a folder shared by workers', () => {
  let parent: string;
  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), 'weft-kv-'));
  });
  afterEach(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  async function folder(name: string, ageMs: number): Promise<void> {
    await mkdir(join(parent, name));
    await writeFile(join(parent, name, 'state.kv'), 'x');
    const at = new Date(Date.now() - ageMs);
    await utimes(join(parent, name), at, at);
  }

  it('removes the folders of workers that stopped without cleaning up, and no live one', async () => {
    await folder('dead.tiny', ABANDONED_AFTER_MS + 60_000);
    await folder('live.tiny', 60_000);
    const store = new SessionStateStore(join(parent, 'me.tiny'), 1000, log);
    await store.save('s1', write('state'));
    expect((await readdir(parent)).sort()).toEqual(['live.tiny', 'me.tiny']);
    await store.clear();
    expect(await readdir(parent)).toEqual(['live.tiny']);
  });

  it('restores a saved state once, and keeps at most maxBytes, least recently saved going first', async () => {
    const store = new SessionStateStore(join(parent, 'me.tiny'), 10, log);
    await store.save('a', write('aaaaaa'));
    await store.save('b', write('bbbbbb'));
    expect(store.sessions()).toEqual(['b']);
    const read: string[] = [];
    expect(await store.restore('b', async (path) => void read.push(path))).toBe(true);
    expect(await store.restore('b', async () => undefined)).toBe(false);
    expect(read).toHaveLength(1);
    await store.clear();
  });

  it('removeAbandoned leaves files and its own folder alone', async () => {
    await folder('old', ABANDONED_AFTER_MS * 2);
    await writeFile(join(parent, 'a-file'), 'x');
    expect(await removeAbandoned(parent, 'old', Date.now())).toEqual([]);
    expect((await readdir(parent)).sort()).toEqual(['a-file', 'old']);
  });
});
