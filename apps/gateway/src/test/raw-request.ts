import { request } from 'node:http';
import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  /** Sent byte for byte: no URL parsing, so `..`, `%00` and doubled slashes reach the server as written. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  contentType: string;
  /** Empty for an event stream, which is cut as soon as its headers arrive. */
  text: string;
}

/** One request on its own connection; rejects (TimeoutError) when no answer is complete within `timeoutMs`. */
export function sendRaw(base: string, raw: RawRequest, timeoutMs: number): Promise<RawResponse> {
  const { hostname, port } = new URL(base);
  // Framed by its length whatever the method: Node sends a GET's body unframed otherwise.
  const headers = raw.body === undefined ? raw.headers : { ...raw.headers, 'content-length': String(raw.body.length) };
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostname, port, method: raw.method, path: raw.path, headers, agent: false, signal: AbortSignal.timeout(timeoutMs) },
      (res) => {
        const contentType = String(res.headers['content-type'] ?? '');
        if (contentType.startsWith('text/event-stream')) {
          res.destroy();
          resolve({ status: res.statusCode ?? 0, contentType, text: '' });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(raw.body);
  });
}

/** Writes `bytes` on a fresh connection as they are (not even HTTP) and reads until the server closes. */
export function sendBytes(base: string, bytes: string, timeoutMs: number): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    let answer = '';
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}
