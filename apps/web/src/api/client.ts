import { ApiCaller, type ApiTransport, type SendRequest, TRANSFER_TIMEOUT_MS, WeftApi, apiRoutes, httpErrorBodySchema } from '@weft/contracts';
import { SESSION_CREDENTIAL, sessionHeaders } from '../signin/web-session';
import { ApiError, NETWORK_ERROR, UNEXPECTED_RESPONSE } from './api-error';
import type { FileEntry, Me } from './schemas';

/** A plain call's deadline; uploads and downloads get longer, the event stream none. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * The gateway's public API (docs/api.md) on this page's own origin, with the user's key or the
 * signed-in browser's session: the routes both clients call (WeftApi) and those only the page does.
 */
export class ApiClient extends WeftApi {
  constructor(key: string) {
    super(new ApiCaller(new BrowserTransport(key)));
  }

  override me(signal?: AbortSignal): Promise<Me> {
    return super.me(withDeadline(signal));
  }

  /** A workspace cloned by the server from a repository on one of `settings().gitImportHosts`. */
  async importWorkspace(git: { url: string; ref?: string }, name?: string): Promise<string> {
    const body = JSON.stringify({ git });
    const signal = AbortSignal.timeout(TRANSFER_TIMEOUT_MS);
    return (await this.api.json(apiRoutes.createWorkspace, { query: { name }, body, contentType: 'application/json', signal })).id;
  }

  /** The conversation as JSONL (every stored event) or Markdown. */
  async exportSession(id: string, format: 'jsonl' | 'markdown'): Promise<Blob> {
    return (await this.api.send(apiRoutes.exportSession, { params: { id }, query: { format }, signal: AbortSignal.timeout(TRANSFER_TIMEOUT_MS) })).blob();
  }

  async folder(workspaceId: string, path: string): Promise<FileEntry[]> {
    return (await this.api.json(apiRoutes.workspaceFiles, { params: { id: workspaceId, path } })).entries;
  }

  async file(workspaceId: string, path: string): Promise<Blob> {
    return (await this.api.send(apiRoutes.workspaceFiles, { params: { id: workspaceId, path } })).blob();
  }

  async archive(workspaceId: string): Promise<Blob> {
    return (await this.api.send(apiRoutes.workspaceArchive, { params: { id: workspaceId }, signal: AbortSignal.timeout(TRANSFER_TIMEOUT_MS) })).blob();
  }
}

/** The caller's signal, and the plain deadline. */
function withDeadline(signal: AbortSignal | undefined): AbortSignal {
  const deadline = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  return signal ? AbortSignal.any([signal, deadline]) : deadline;
}

/**
 * Requests from this page: the key as the bearer (or the browser session's cookie and CSRF token), a REQUEST_TIMEOUT_MS deadline unless the call
 * brings its own signal (a transfer's longer deadline, the event stream's none), and every failure
 * but the caller's own abort as an ApiError the page can show.
 */
export class BrowserTransport implements ApiTransport {
  constructor(private readonly key: string) {}

  async send(request: SendRequest): Promise<Response> {
    const { method, path } = request;
    // No key: signed in through the identity provider, the session cookie goes along and changes carry its CSRF token.
    const credential = this.key === SESSION_CREDENTIAL ? sessionHeaders() : { authorization: `Bearer ${this.key}` };
    const headers: Record<string, string> = { ...credential, ...request.headers };
    if (request.contentType) headers['content-type'] = request.contentType;
    let response: Response;
    try {
      response = await fetch(path, { method, headers, body: request.body, credentials: 'same-origin', signal: request.signal ?? AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    } catch (error) {
      if (request.signal?.aborted && request.signal.reason?.name !== 'TimeoutError') throw error;
      const why = error instanceof DOMException && error.name === 'TimeoutError' ? 'it did not answer in time' : 'it could not be reached';
      throw new ApiError(0, NETWORK_ERROR, `The gateway did not answer ${method} ${path}: ${why}.`);
    }
    if (!response.ok) throw await errorOf(response);
    return response;
  }

  unexpected(request: SendRequest, response: Response): Error {
    return new ApiError(response.status, UNEXPECTED_RESPONSE, `The gateway's answer to ${request.method} ${request.path} was not what this page expects.`);
  }
}

async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined; // a proxy's page, or nothing: described by the status below
  }
  const wire = httpErrorBodySchema.safeParse(body);
  if (wire.success) return new ApiError(response.status, wire.data.error.code, wire.data.error.message, wire.data.error.details);
  return new ApiError(response.status, UNEXPECTED_RESPONSE, `The gateway answered ${response.status} ${response.statusText}`.trim() + '.');
}
