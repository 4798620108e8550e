import { ApiCaller, type ApiTransport, type SendRequest, apiRoutes, httpErrorBodySchema } from '@weft/contracts';
import { SESSION_CREDENTIAL, sessionHeaders } from '../signin/web-session';
import { ApiError, NETWORK_ERROR, UNEXPECTED_RESPONSE } from './api-error';
import type { ChainListing, FileEntry, Me, ModelInfo, Note, PermissionDecision, ServerSettings, Session, SessionSummary, Workspace } from './schemas';

/** A plain call's deadline; uploads and downloads get longer, the event stream none. */
const REQUEST_TIMEOUT_MS = 30_000;
const TRANSFER_TIMEOUT_MS = 300_000;

/** The gateway's public API (docs/api.md) on this page's own origin, with the user's key, on the shared typed caller. */
export class ApiClient {
  private readonly api: ApiCaller;

  constructor(key: string) {
    this.api = new ApiCaller(new BrowserTransport(key));
  }

  me(signal?: AbortSignal): Promise<Me> {
    return this.api.json(apiRoutes.me, { signal: withDeadline(signal) });
  }

  async models(): Promise<ModelInfo[]> {
    return (await this.api.json(apiRoutes.models, {})).models;
  }

  async workspaces(): Promise<Workspace[]> {
    return (await this.api.json(apiRoutes.workspaces, {})).workspaces;
  }

  /** `archive`: a tar.gz of the folder, packed in the page. */
  async uploadWorkspace(archive: Blob, name: string): Promise<string> {
    const signal = AbortSignal.timeout(TRANSFER_TIMEOUT_MS);
    return (await this.api.json(apiRoutes.createWorkspace, { query: { name }, body: archive, contentType: 'application/gzip', signal })).id;
  }

  /** A workspace cloned by the server from a repository on one of `settings().gitImportHosts`. */
  async importWorkspace(git: { url: string; ref?: string }, name?: string): Promise<string> {
    const body = JSON.stringify({ git });
    const signal = AbortSignal.timeout(TRANSFER_TIMEOUT_MS);
    return (await this.api.json(apiRoutes.createWorkspace, { query: { name }, body, contentType: 'application/json', signal })).id;
  }

  /** What this server allows: the hosts git import may clone from (none: it is off), the upload limit. */
  settings(): Promise<ServerSettings> {
    return this.api.json(apiRoutes.settings, {});
  }

  async sessions(): Promise<SessionSummary[]> {
    return (await this.api.json(apiRoutes.sessions, {})).sessions;
  }

  session(id: string): Promise<Session> {
    return this.api.json(apiRoutes.session, { params: { id } });
  }

  async createSession(input: { workspaceId: string; model: string; title?: string }): Promise<string> {
    return (await this.api.json(apiRoutes.createSession, { body: input })).id;
  }

  /** Sets the session's title; null clears it (the list then shows the first message). */
  async renameSession(id: string, title: string | null): Promise<void> {
    await this.api.send(apiRoutes.updateSession, { params: { id }, body: { title } });
  }

  /** The conversation as JSONL (every stored event) or Markdown. */
  async exportSession(id: string, format: 'jsonl' | 'markdown'): Promise<Blob> {
    return (await this.api.send(apiRoutes.exportSession, { params: { id }, query: { format }, signal: AbortSignal.timeout(TRANSFER_TIMEOUT_MS) })).blob();
  }

  /** 409 while a turn runs in it. */
  async deleteSession(id: string): Promise<void> {
    await this.api.send(apiRoutes.deleteSession, { params: { id } });
  }

  async postMessage(sessionId: string, content: string, mode: 'chat' | 'plan'): Promise<string> {
    const body = mode === 'plan' ? { content, mode } : { content };
    return (await this.api.json(apiRoutes.postMessage, { params: { id: sessionId }, body })).turnId;
  }

  async cancelTurn(sessionId: string, turnId: string): Promise<void> {
    await this.api.send(apiRoutes.cancelTurn, { params: { id: sessionId, turnId } });
  }

  answerPermission(sessionId: string, requestId: string, decision: PermissionDecision, reason?: string) {
    const body = reason ? { decision, reason } : { decision };
    return this.api.json(apiRoutes.answerPermission, { params: { id: sessionId, requestId }, body });
  }

  /** The session's event log from after `lastEventId` (all of it without), then live; never ends by itself. */
  events(sessionId: string, lastEventId: string | null, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (lastEventId) headers['last-event-id'] = lastEventId;
    // The stream has no deadline: the caller's signal ends it.
    return this.api.send(apiRoutes.events, { params: { id: sessionId }, headers, signal });
  }

  /** The workspace's shared notes, oldest first: what every model working in it reads. */
  async notes(workspaceId: string): Promise<Note[]> {
    return (await this.api.json(apiRoutes.notes, { params: { id: workspaceId } })).notes;
  }

  addNote(workspaceId: string, text: string): Promise<Note> {
    return this.api.json(apiRoutes.addNote, { params: { id: workspaceId }, body: { text } });
  }

  async deleteNote(workspaceId: string, noteId: string): Promise<void> {
    await this.api.send(apiRoutes.deleteNote, { params: { id: workspaceId, noteId } });
  }

  async clearNotes(workspaceId: string): Promise<number> {
    return (await this.api.json(apiRoutes.clearNotes, { params: { id: workspaceId } })).deleted;
  }

  /** The chains of the session's workspace (`.weft/chains/*.yaml`); a broken file comes with its error. */
  async chains(sessionId: string): Promise<ChainListing[]> {
    return (await this.api.json(apiRoutes.chains, { params: { id: sessionId } })).chains;
  }

  /** Starts the chain as a turn of the session; its steps stream like any turn's events. */
  async runChain(sessionId: string, name: string, inputs: Record<string, string>): Promise<string> {
    return (await this.api.json(apiRoutes.runChain, { params: { id: sessionId, name }, body: { inputs } })).turnId;
  }

  async folder(workspaceId: string, path: string): Promise<FileEntry[]> {
    return (await this.api.json(apiRoutes.workspaceFiles, { params: { id: workspaceId, path } })).entries;
  }

  async file(workspaceId: string, path: string): Promise<Blob> {
    return (await this.api.send(apiRoutes.workspaceFiles, { params: { id: workspaceId, path } })).blob();
  }

  /** Everything changed since the workspace was created, as a git diff ('' when nothing did). */
  async patch(workspaceId: string): Promise<string> {
    return (await this.api.send(apiRoutes.workspacePatch, { params: { id: workspaceId }, signal: AbortSignal.timeout(TRANSFER_TIMEOUT_MS) })).text();
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
