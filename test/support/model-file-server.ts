import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the server saw: what was asked, and the Range header when there was one. */
export interface SeenRequest {
  method: string;
  path: string;
  range?: string;
}

export interface ModelFileServer {
  /** `http://<host>:<port>`; the host is 127.0.0.1 unless the server was asked to listen on all interfaces. */
  base: string;
  port: number;
  sha256: string;
  size: number;
  requests: SeenRequest[];
  /** The next `times` GETs of the file send `bytes` bytes and then drop the connection. */
  cutNext(bytes: number, times?: number): void;
  /** Serves `<path>.sha256` with this text (a wrong digest, for instance); undefined serves none. */
  setSha256File(text: string | undefined): void;
  close(): Promise<void>;
}

/**
 * Serves one GGUF the way the places a model is pulled from do, for the tests: a plain URL at
 * `/files/<name>` (with HTTP Range, and `<name>.sha256` beside it when set), and the hub's shape at
 * `/<owner>/<repo>/resolve/main/<name>`: a HEAD answered with a redirect carrying `X-Linked-Etag`
 * (the SHA-256) and `X-Linked-Size`, a GET redirected to the file.
 */
export async function startModelFileServer(file: string, name: string, options: { listenAll?: boolean } = {}): Promise<ModelFileServer> {
  const body = await readFile(file);
  const sha256 = createHash('sha256').update(body).digest('hex');
  const requests: SeenRequest[] = [];
  let cuts: { bytes: number; times: number } | undefined;
  let sha256File: string | undefined;

  const serveFile = (req: IncomingMessage, res: ServerResponse) => {
    const match = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = match ? Number(match[1]) : 0;
    if (start >= body.length && match) {
      res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
      return;
    }
    const headers = { 'content-type': 'application/octet-stream', 'accept-ranges': 'bytes', 'content-length': String(body.length - start) };
    res.writeHead(match ? 206 : 200, match ? { ...headers, 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` } : headers);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    if (cuts && cuts.times > 0) {
      cuts.times--;
      // A FIN after the bytes (not a reset): the client gets exactly `bytes`, then a connection that
      // ends early. The FIN waits a moment: arriving with the bytes, undici may end the body before
      // the client has read them (CI saw 0 bytes), which tests nothing about resuming.
      res.write(body.subarray(start, Math.min(body.length, start + cuts.bytes)), () => setTimeout(() => res.socket?.end(), 500));
      return;
    }
    res.end(body.subarray(start));
  };

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push({ method: req.method ?? 'GET', path, ...(req.headers.range ? { range: req.headers.range } : {}) });
    if (path === `/files/${name}`) return serveFile(req, res);
    if (path === `/files/${name}.sha256` && sha256File !== undefined) return void res.writeHead(200, { 'content-type': 'text/plain' }).end(sha256File);
    if (/^\/[^/]+\/[^/]+\/resolve\/main\//.test(path) && path.endsWith(`/${name}`)) {
      return void res.writeHead(302, { location: `/files/${name}`, 'x-linked-etag': `"${sha256}"`, 'x-linked-size': String(body.length) }).end();
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Entry not found');
  });
  await new Promise<void>((resolve) => server.listen(0, options.listenAll ? '0.0.0.0' : '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    sha256,
    size: body.length,
    requests,
    cutNext: (bytes, times = 1) => (cuts = { bytes, times }),
    setSha256File: (text) => (sha256File = text),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
