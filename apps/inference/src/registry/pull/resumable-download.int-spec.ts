import { execFile } from 'node:child_process';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AppError, ErrorCode } from '@weft/contracts';
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
  return { reason: reasonOf(error), message: (error as Error).message, ...(error instanceof AppError ? { code: error.code } : {}) };
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
    expect(missing).toEqual({ reason: 'http-status', code: ErrorCode.ModelDownloadFailed, message: `${server.base}/weft/tiny-GGUF/resolve/main/other.gguf answered HTTP 404: no such file` });
  });

  it('refuses a download that cannot fit, and deletes what it wrote when the disk fills', async () => {
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
      expect(filled).toEqual({ reason: 'disk-full', code: ErrorCode.ModelsDiskFull, message: `The models volume (${small}) is full. Free space or grow the volume, then pull again; the partial file is deleted` });
      expect(await readdir(small)).toEqual([]);
    } finally {
      await run('umount', [small]);
      await rm(small, { recursive: true, force: true });
    }
  });
  it('stops a pull past its cap and leaves nothing behind, announced or not', async () => {
    const url = `${server.base}/files/tiny.gguf`;
    const into = await freshDir();
    const dest = join(into, 'tiny.gguf');
    const cap = { bytes: 100_000, origin: 'given' as const };
    const announced = await failureOf(downloadResumable({ url, dest, expected: { sizeBytes: server.size, checksum: 'none' }, cap }));
    expect(announced).toEqual({ reason: 'too-large', code: ErrorCode.ModelTooLarge, message: `${url} is ${server.size} bytes, over this pull's cap of 100000 bytes (maxSizeBytes, --max-size): the download is stopped and nothing was kept` });

    const before = server.requests.length;
    const unannounced = await failureOf(downloadResumable({ url, dest, expected: { checksum: 'none' }, cap }));
    expect(unannounced).toEqual({ reason: 'too-large', code: ErrorCode.ModelTooLarge, message: `${url} is more than 100000 bytes, over this pull's cap of 100000 bytes (maxSizeBytes, --max-size): the download is stopped and nothing was kept` });
    expect(server.requests.slice(before)).toEqual([{ method: 'GET', path: '/files/tiny.gguf' }]);
    expect(await readdir(into)).toEqual([]);
  });

  it('refuses a server that sends more than the length it announced, and keeps nothing', async () => {
    const liar = await startLyingServer();
    try {
      const source = resolveModelSource(`${liar.base}/big.gguf`, 'https://unused.example');
      const expected = await probeSource(source, undefined);
      expect(expected).toEqual({ sizeBytes: 1024, checksum: 'none' });
      const into = await freshDir();
      const failure = await failureOf(downloadResumable({ url: source.url, dest: join(into, 'big.gguf'), expected, retries: 0 }));
      expect(failure).toEqual({ reason: 'oversize', code: ErrorCode.ModelDownloadFailed, message: `${source.url} sent more than the 1024 bytes it announced: the download is stopped and its partial file deleted` });
      expect(await readdir(into)).toEqual([]);
      // The body was cancelled at once: far less than the 64 MiB the server would send was taken.
      expect(liar.sentBytes()).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await liar.close();
    }
  });
});

/** A model host that says (HEAD) a file has 1,024 bytes, then sends up to 64 MiB without a length. */
async function startLyingServer(): Promise<{ base: string; sentBytes: () => number; close: () => Promise<void> }> {
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, 7);
  const server: Server = createHttpServer((req, res) => {
    if (req.method === 'HEAD') return void res.writeHead(200, { 'content-length': '1024' }).end();
    if (req.url?.endsWith('.sha256')) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const pump = () => {
      while (sent < 64 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('close', () => res.removeAllListeners('drain'));
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    sentBytes: () => sent,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
