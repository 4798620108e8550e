import type { ApiTransport, SendRequest } from '@weft/contracts';
import { z } from 'zod';
import { ApiError, ConnectionError, ProtocolError } from './errors';

/** Plain requests; uploads and downloads get longer (TRANSFER_TIMEOUT_MS), the event stream gets an idle timer instead. */
export const REQUEST_TIMEOUT_MS = 30_000;

export type FetchFn = typeof fetch;

const wireErrorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
});

/**
 * One bearer credential (a user's key or the admin token) against one gateway, as the shared
 * ApiCaller's transport: every request has a timeout, a non-2xx answer becomes an ApiError, an
 * answer of the wrong shape a ProtocolError.
 */
export class GatewayHttp implements ApiTransport {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
    private readonly fetchFn: FetchFn = fetch,
  ) {}

  async send(request: SendRequest): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, ...request.headers };
    if (request.contentType) headers['content-type'] = request.contentType;
    let response: Response;
    try {
      response = await this.fetchFn(`${this.baseUrl}${request.path}`, {
        method: request.method,
        headers,
        body: request.body,
        signal: request.signal ?? AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw toTransportError(this.baseUrl, error);
    }
    if (!response.ok) throw await toApiError(response);
    return response;
  }

  unexpected(request: SendRequest, _response: Response, problem: string): Error {
    return new ProtocolError(`${request.method} ${request.path}: unexpected response from the gateway: ${problem}`);
  }
}

/** Maps a non-2xx response to an ApiError, keeping the gateway's code when it sent one. */
export async function toApiError(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
  const retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined; // not JSON: a proxy's HTML page, say; fall back to the status line
  }
  const parsed = wireErrorBodySchema.safeParse(body);
  if (parsed.success) {
    const { code, message, details } = parsed.data.error;
    return new ApiError(response.status, code, message, details, retryAfterSeconds);
  }
  const message = text.trim().slice(0, 200) || response.statusText || 'request failed';
  return new ApiError(response.status, `HTTP_${response.status}`, message, undefined, retryAfterSeconds);
}

/** A user's abort passes through untouched; everything else is the gateway being unreachable. */
export function toTransportError(baseUrl: string, error: unknown): Error {
  if (error instanceof Error && error.name === 'AbortError') return error;
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new ConnectionError(baseUrl, 'the request timed out', { cause: error });
  }
  const code = causeCode(error);
  const reason =
    code === 'ECONNREFUSED'
      ? 'connection refused (is the gateway running?)'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'unknown host'
        : code
          ? code
          : error instanceof Error
            ? error.message
            : String(error);
  return new ConnectionError(baseUrl, reason, { cause: error });
}

function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    // fetch puts the socket error in `cause`; a refused dual-stack connect nests an AggregateError
    current = current instanceof AggregateError ? current.errors[0] : current.cause;
  }
  return undefined;
}
