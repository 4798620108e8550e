import { createWriteStream } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import * as tar from 'tar';
import * as tarStream from 'tar-stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addHostConfig, configFiles, readHostConfig, restoreHostConfig, withoutHostConfig } from './backup-config';

async function list(file: string): Promise<string[]> {
  const paths: string[] = [];
  await tar.t({ file, onReadEntry: (entry) => paths.push(entry.path) });
  return paths;
}

describe('host configuration in a backup archive', () => {
  let dir: string;
  let backup: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-backup-config-'));
    const gatewayPart = join(dir, 'gateway');
    await mkdir(join(gatewayPart, 'workspaces'), { recursive: true });
    await writeFile(join(gatewayPart, 'weft-backup.json'), '{}');
    await writeFile(join(gatewayPart, 'workspaces', 'ws-1.tar.gz'), Buffer.alloc(200_000, 7));
    backup = join(dir, 'gateway.tar.gz');
    await tar.c({ gzip: true, cwd: gatewayPart, file: backup, portable: true }, ['weft-backup.json', 'workspaces']);
    await mkdir(join(dir, 'checkout', 'config', 'scripts'), { recursive: true });
    await writeFile(join(dir, 'checkout', '.env'), 'WEFT_ADMIN_TOKEN=x\n');
    await writeFile(join(dir, 'checkout', 'config', 'models.json'), '{}');
    await writeFile(join(dir, 'checkout', 'config', 'scripts', 'demo.json'), '[]');
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('adds .env and config/ after the gateway entries, and strips them again byte for byte', async () => {
    const files = await configFiles(join(dir, 'checkout'));
    expect(files).toEqual(['.env', 'config/models.json', 'config/scripts/demo.json']);
    const withConfig = join(dir, 'with.tar.gz');
    await addHostConfig(backup, withConfig, join(dir, 'checkout'), files);
    const original = await list(backup);
    expect(await list(withConfig)).toEqual([...original, ...files.map((f) => `host-config/${f}`)]);

    const stripped = join(dir, 'stripped.tar.gz');
    await withoutHostConfig(withConfig, stripped);
    expect(await list(stripped)).toEqual(original);
    const unpacked = join(dir, 'unpacked');
    await mkdir(unpacked);
    await tar.x({ file: stripped, cwd: unpacked });
    expect(await readFile(join(unpacked, 'workspaces', 'ws-1.tar.gz'))).toEqual(Buffer.alloc(200_000, 7));
    expect((await readHostConfig(withConfig)).get('.env')?.data.toString()).toBe('WEFT_ADMIN_TOKEN=x\n');
  });

  it('writes .env for its owner alone (0600), over a world-readable one and whatever mode the archive says', async () => {
    const checkout = join(dir, 'checkout');
    await chmod(join(checkout, '.env'), 0o644);
    const withConfig = join(dir, 'with.tar.gz');
    await addHostConfig(backup, withConfig, checkout, ['.env']);
    await writeFile(join(checkout, '.env'), 'WEFT_ADMIN_TOKEN=changed\n');
    await chmod(join(checkout, '.env'), 0o644);

    expect((await restoreHostConfig(withConfig, checkout, true)).written).toEqual(['.env']);
    expect((await stat(join(checkout, '.env'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(checkout, '.env.before-restore'))).mode & 0o777).toBe(0o600);
    await rm(join(checkout, '.env'));
    await rm(join(checkout, '.env.before-restore'));
    await restoreHostConfig(withConfig, checkout, false);
    expect((await stat(join(checkout, '.env'))).mode & 0o777).toBe(0o600);
  });

  it('refuses an archive whose host configuration would write outside the checkout', async () => {
    const evil = join(dir, 'evil.tar.gz');
    const pack = tarStream.pack();
    pack.entry({ name: 'host-config/../../outside' }, 'pwned');
    pack.finalize();
    await pipeline(pack, createGzip(), createWriteStream(evil));
    await expect(restoreHostConfig(evil, join(dir, 'checkout'), true)).rejects.toThrow('unexpected path: host-config/../../outside');
  });

  it('says so when a backup holds no host configuration', async () => {
    await expect(restoreHostConfig(backup, join(dir, 'checkout'), false)).rejects.toThrow('holds no host configuration');
  });
});
