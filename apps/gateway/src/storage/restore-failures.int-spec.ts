import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from '../test/gateway-under-test';
import { ScriptedWorkersModule } from '../test/scripted-workers';

/**
 * Restores that fail (a second one while the first unpacks, an archive that breaks off mid-way)
 * answer a coded 4xx, and leave nothing in the staging folder (BACKUP_STAGING_DIR).
 */
let gateway: GatewayUnderTest;
let dir: string;
let staging: string;
/** A tar.gz of many small files and no manifest. */
let withoutManifest: Buffer;
/**
 * The same files, then a header that does not hold: the unpacker fails with the first files'
 * writes still in flight (a staging folder removed at once then came back ENOTEMPTY, a 500).
 */
let breaksOff: Buffer;

const FILES = 3000;
const STAGED_WAIT_MS = 20_000;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weft-restore-failures-'));
  staging = join(dir, 'staging');
  const source = join(dir, 'source');
  await mkdir(join(source, 'workspaces'), { recursive: true });
  for (let i = 0; i < FILES; i++) await writeFile(join(source, 'workspaces', `file-${i}.txt`), `file ${i}\n`);
  const plain = await buffer(tar.c({ cwd: source, portable: true }, ['workspaces']));
  withoutManifest = gzipSync(plain);
  // The archive's end (two zero blocks) replaced by a header block whose checksum is wrong, then the end.
  breaksOff = gzipSync(Buffer.concat([plain.subarray(0, plain.length - 1024), Buffer.alloc(512, 'A'), Buffer.alloc(1024)]));
  gateway = await startGatewayUnderTest(ScriptedWorkersModule, { BACKUP_STAGING_DIR: staging });
});

afterAll(async () => {
  await gateway?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function restore(body: string | Buffer | ReadableStream<Uint8Array>) {
  return fetch(`${gateway.base}/v1/admin/restore`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/gzip' },
    body,
    duplex: 'half',
  } as RequestInit);
}

async function answer(response: Response) {
  return { status: response.status, json: (await response.json()) as { error?: { code: string; message: string }; keys?: number } };
}

/** Everything under the staging folder, folders and files. */
async function staged(): Promise<string[]> {
  return readdir(staging, { recursive: true }).catch(() => []);
}

describe('a restore that fails', () => {
  it('answers 400 STORAGE.BACKUP_INVALID for an archive that breaks off mid-way, and leaves nothing staged', async () => {
    const refused = await answer(await restore(breaksOff));
    expect(refused).toMatchObject({ status: 400, json: { error: { code: 'STORAGE.BACKUP_INVALID', message: expect.stringContaining('not a Weft backup') } } });
    expect(await staged()).toEqual([]);
  });

  it('answers 400 STORAGE.BACKUP_INVALID for a body that is no tar.gz, or an archive without a manifest', async () => {
    expect(await answer(await restore('plain text, not an archive'))).toMatchObject({ status: 400, json: { error: { code: 'STORAGE.BACKUP_INVALID' } } });
    expect(await answer(await restore(withoutManifest))).toMatchObject({ status: 400, json: { error: { code: 'STORAGE.BACKUP_INVALID', message: expect.stringContaining('weft-backup.json') } } });
    expect(await staged()).toEqual([]);
  });

  it('refuses a second restore with 409 STORAGE.RESTORE_IN_PROGRESS while the first unpacks; then takes the next one', async () => {
    let upload!: ReadableStreamDefaultController<Uint8Array>;
    const first = restore(new ReadableStream<Uint8Array>({ start: (controller) => void (upload = controller) }));
    const half = Math.floor(breaksOff.length / 2);
    upload.enqueue(breaksOff.subarray(0, half));
    // The first restore is unpacking once its files appear in the staging folder.
    const deadline = Date.now() + STAGED_WAIT_MS;
    while ((await staged()).length < 2 && Date.now() < deadline) await sleep(20);
    expect((await staged()).length).toBeGreaterThan(1);

    const second = await answer(await restore(withoutManifest));
    expect(second).toMatchObject({ status: 409, json: { error: { code: 'STORAGE.RESTORE_IN_PROGRESS' } } });

    upload.enqueue(breaksOff.subarray(half));
    upload.close();
    expect(await answer(await first)).toMatchObject({ status: 400, json: { error: { code: 'STORAGE.BACKUP_INVALID' } } });
    expect(await staged()).toEqual([]);

    // The lock went with the first restore: a good backup (this gateway's own) restores.
    const backup = await fetch(`${gateway.base}/v1/admin/backup`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(backup.status).toBe(200);
    const restored = await answer(await restore(Buffer.from(await backup.arrayBuffer())));
    expect(restored).toMatchObject({ status: 201, json: { keys: expect.any(Number) } });
    expect(await staged()).toEqual([]);
  });
});
