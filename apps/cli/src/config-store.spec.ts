import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigStore, resolveCredentials } from './config-store';
import { NotLoggedInError } from './errors';

describe('ConfigStore', () => {
  let xdg: string;

  beforeEach(async () => {
    xdg = await mkdtemp(join(tmpdir(), 'weft-cli-config-'));
  });
  afterEach(async () => {
    await rm(xdg, { recursive: true, force: true });
  });

  it('writes the credentials readable by the owner alone and reads them back', async () => {
    const store = new ConfigStore({ XDG_CONFIG_HOME: xdg });
    await store.save({ url: 'http://gw:8080', key: 'weft_secret' });

    expect(store.path).toBe(join(xdg, 'weft', 'config.json'));
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(xdg, 'weft'))).mode & 0o777).toBe(0o700);
    expect(await new ConfigStore({ XDG_CONFIG_HOME: xdg }).load()).toEqual({ url: 'http://gw:8080', key: 'weft_secret' });
  });

  it('tightens the mode of a config file that was readable by others', async () => {
    const store = new ConfigStore({ XDG_CONFIG_HOME: xdg });
    await store.save({ url: 'http://gw:8080', key: 'old' });
    await writeFile(store.path, '{}', { mode: 0o644 });
    await store.save({ url: 'http://gw:8080', key: 'new' });
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(store.path, 'utf8'))).toEqual({ url: 'http://gw:8080', key: 'new' });
  });

  it('falls back to ~/.config when XDG_CONFIG_HOME is unset', () => {
    expect(new ConfigStore({ HOME: '/home/ada' }).path).toBe('/home/ada/.config/weft/config.json');
  });

  it('lets WEFT_URL and WEFT_KEY override the file', async () => {
    const store = new ConfigStore({ XDG_CONFIG_HOME: xdg });
    await store.save({ url: 'http://file:8080', key: 'file-key' });
    const env = { XDG_CONFIG_HOME: xdg, WEFT_URL: 'http://env:9090/', WEFT_KEY: 'env-key' };
    expect(await resolveCredentials(store, env)).toEqual({ url: 'http://env:9090', key: 'env-key' });
    expect(await resolveCredentials(store, { XDG_CONFIG_HOME: xdg, WEFT_KEY: 'env-key' })).toEqual({ url: 'http://file:8080', key: 'env-key' });
  });

  it('says to log in when neither file nor environment has credentials', async () => {
    const store = new ConfigStore({ XDG_CONFIG_HOME: xdg });
    await expect(resolveCredentials(store, {})).rejects.toBeInstanceOf(NotLoggedInError);
    await expect(resolveCredentials(store, {})).rejects.toThrow(/weft login/);
  });
});
