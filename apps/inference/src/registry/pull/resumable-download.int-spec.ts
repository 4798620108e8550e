import { execFile } from 'node:child_process';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ModelFileServer, startModelFileServer } from '../../../../../test/support/model-file-server';
import { makeTempDir, makeTestModel, removeDir } from '../../testing/worker-harness';
import { probeSource } from './expected-digest';
import { resolveModelSource } from './model-source';
import { reasonOf } from './pull-errors';
import { downloadResumable, partFileOf } from './resumable-download';

const run = promisify(execFile);

/** The real GGUF over real HTTP into real folders, a 256 KiB tmpfs standing in for a full volume. */
let dir: string;
let server: ModelFileServer;
let testNo = 0;

async function failureOf(work: Promise<unknown>) {
  const error = await work.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!error) throw new Error('expected a failure');
  return { reason: reasonOf(error), message: (error as Error).message };
}

async function freshDir(): Promise<string> {
  const path = join(dir, `t${++testNo}`);
  await mkdir(path);
  return path;
}

beforeAll(async () => {
  dir = await makeTempDir('weft-pull-');
  server = await startModelFileServer(await makeTestModel(dir, 'tiny.gguf'), 'tiny.gguf');
});

afterAll(async () => {
  await server?.close();
  await removeDir(dir);
});

describe('pulling a GGUF', () => {
  it("takes the hub's SHA-256 and size from its headers, downloads and verifies", async () => {
    const source = resolveModelSource('hf:weft/tiny-GGUF/tiny.gguf', server.base);
    expect(source.url).toBe(`${server.base}/weft/tiny-GGUF/resolve/main/tiny.gguf`);
    const expected = await probeSource(source, undefined);
    expect(expected).toEqual({ sizeBytes: server.size, sha256: server.sha256, checksum: 'hub' });

    const into = await freshDir();
    const file = await downloadResumable({ url: source.url, dest: join(into, source.file), expected });
    expect(file).toEqual({ sizeBytes: server.size, sha256: server.sha256, resumedFrom: 0 });
    expect(await readdir(into)).toEqual(['tiny.gguf']);
  });

  it('keeps a broken download as .part and resumes it with HTTP Range', async () => {
    const source = resolveModelSource(`${server.base}/files/tiny.gguf`, 'https://unused.example');
    const expected = await probeSource(source, undefined);
    expect(expected).toEqual({ sizeBytes: server.size, checksum: 'none' });
    const into = await freshDir();
    const dest = join(into, 'tiny.gguf');

    server.cutNext(100_000);
    const broken = await failureOf(downloadResumable({ url: source.url, dest, expected, retries: 0 }));
    expect(broken.reason).toBe('interrupted');
    expect(broken.message).toMatch(/(broke off|ended) after 100000 (bytes|of 517568 bytes).*pull again to resume/);
    expect(await readdir(into)).toEqual(['tiny.gguf.part']);
    expect((await stat(partFileOf(dest))).size).toBe(100_000);

    const before = server.requests.length;
    const file = await downloadResumable({ url: source.url, dest, expected, retries: 0 });
    expect(file).toEqual({ sizeBytes: server.size, sha256: server.sha256, resumedFrom: 100_000 });
    expect(server.requests.slice(before)).toEqual([{ method: 'GET', path: '/files/tiny.gguf', range: 'bytes=100000-' }]);
    expect(await readdir(into)).toEqual(['tiny.gguf']);
  });

  it('retries a connection that drops, each try resuming where the last stopped', async () => {
    const url = `${server.base}/files/tiny.gguf`;
    const into = await freshDir();
    server.cutNext(150_000, 2);
    const before = server.requests.length;
    const file = await downloadResumable({ url, dest: join(into, 'tiny.gguf'), expected: { sizeBytes: server.size, checksum: 'none' }, retries: 3, retryDelayMs: 10 });
    expect(file.sha256).toBe(server.sha256);
    expect(server.requests.slice(before).map((r) => r.range)).toEqual([undefined, 'bytes=150000-', 'bytes=300000-']);
  });

  it('deletes a file whose SHA-256 is not the published one, and says whose it was', async () => {
    server.setSha256File(`${'0'.repeat(64)}  tiny.gguf\n`);
    try {
      const source = resolveModelSource(`${server.base}/files/tiny.gguf`, 'https://unused.example');
      const expected = await probeSource(source, undefined);
      expect(expected).toMatchObject({ sha256: '0'.repeat(64), checksum: 'sha256-file' });
      const into = await freshDir();
      const failure = await failureOf(downloadResumable({ url: source.url, dest: join(into, 'tiny.gguf'), expected }));
      expect(failure.reason).toBe('checksum');
      expect(failure.message).toContain(`has SHA-256 ${server.sha256}, not the expected ${'0'.repeat(64)} (from the .sha256 file beside the URL)`);
      expect(await readdir(into)).toEqual([]);
    } finally {
      server.setSha256File(undefined);
    }
  });

  it('names an unreachable host, and a missing file', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const nowhere = await failureOf(probeSource(resolveModelSource(`http://127.0.0.1:${port}/m.gguf`, ''), undefined));
    expect(nowhere.reason).toBe('unreachable');
    expect(nowhere.message).toContain(`Cannot reach http://127.0.0.1:${port}/m.gguf (fetch failed: ECONNREFUSED)`);

    const missing = await failureOf(probeSource(resolveModelSource('hf:weft/tiny-GGUF/other.gguf', server.base), undefined));
    expect(missing).toEqual({ reason: 'http-status', message: `${server.base}/weft/tiny-GGUF/resolve/main/other.gguf answered HTTP 404: no such file` });
  });

  it('refuses a download that cannot fit, and keeps what fit when the size was not known', async () => {
    const small = await freshDir();
    await run('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', small]);
    try {
      const url = `${server.base}/files/tiny.gguf`;
      const dest = join(small, 'tiny.gguf');
      const refused = await failureOf(downloadResumable({ url, dest, expected: { sizeBytes: server.size, checksum: 'none' } }));
      expect(refused.reason).toBe('disk-full');
      expect(refused.message).toBe(`The models volume (${small}) is full: 0.5 MiB needed, 0.3 MiB free. Free space or grow the volume, then pull again`);
      expect(await readdir(small)).toEqual([]);

      const filled = await failureOf(downloadResumable({ url, dest, expected: { checksum: 'none' } }));
      expect(filled.reason).toBe('disk-full');
      expect(filled.message).toContain(`the part downloaded so far is kept in ${partFileOf(dest)} and the pull resumes from it`);
      expect(await readdir(small)).toEqual(['tiny.gguf.part']);
    } finally {
      await run('umount', [small]);
      await rm(small, { recursive: true, force: true });
    }
  });
});
