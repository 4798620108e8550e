import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ErrorCode } from '@weft/contracts';

/** Node's parser codes for a request it could not read, with the status and words the client gets. */
const CLIENT_ERRORS: Record<string, { status: number; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: `Request headers, the URL included, are larger than the server accepts` },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, message: 'Request chunk extensions are larger than the server accepts' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'The request did not arrive in time' },
};
const MALFORMED = { status: 400, message: 'Malformed HTTP request' };

/**
 * A request Node's HTTP parser refuses (headers too large, a broken request line) never reaches
 * Express: Node answers it with an empty body. This answers it in the API's JSON error shape.
 */
export function answerClientErrorsAsJson(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A response already under way on this connection (keep-alive) must not be interleaved.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight) {
      socket.destroy();
      return;
    }
    const { status, message } = CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED;
    const code = status === 413 ? ErrorCode.PayloadTooLarge : ErrorCode.ValidationFailed;
    const body = JSON.stringify({ error: { code, message } });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
