import type { ApiCaller } from './api-caller';
import { apiRoutes } from './api-routes';
import type { ChainListing, ListedModel, Me, Note, PermissionAnswer, ServerSettings, Session, SessionSummary, TurnOptions, WorkspaceSummary } from './answers';

/** An upload's or a download's deadline: a large workspace on a slow link. */
export const TRANSFER_TIMEOUT_MS = 10 * 60_000;

/**
 * The routes of the gateway's public API that both the CLI and the web page call, one method
 * each, on the shared typed caller. Each client extends it with what only it needs and gives the
 * caller its own transport (credentials, deadlines, how errors read).
 */
export class WeftApi {
  constructor(protected readonly api: ApiCaller) {}

  me(signal?: AbortSignal): Promise<Me> {
    return this.api.json(apiRoutes.me, { signal });
  }

  async models(): Promise<ListedModel[]> {
    return (await this.api.json(apiRoutes.models, {})).models;
  }

  /** The caller's workspaces, newest first, with their size and last use. */
  async workspaces(): Promise<WorkspaceSummary[]> {
    return (await this.api.json(apiRoutes.workspaces, {})).workspaces;
  }

  /** What this server lets a client offer: git import hosts, the largest upload. */
  settings(): Promise<ServerSettings> {
    return this.api.json(apiRoutes.settings, {});
  }

  /** A tar.gz of the workspace's files; `name` is what the listing calls it. Answers its id. */
  async uploadWorkspace(archive: Blob, name?: string): Promise<string> {
    const signal = AbortSignal.timeout(TRANSFER_TIMEOUT_MS);
    return (await this.api.json(apiRoutes.createWorkspace, { query: { name }, body: archive, contentType: 'application/gzip', signal })).id;
  }

  /** Everything changed in the workspace since it was created, as a git diff ('' when nothing changed). */
  async patch(workspaceId: string): Promise<string> {
    return (await this.api.send(apiRoutes.workspacePatch, { params: { id: workspaceId }, signal: AbortSignal.timeout(TRANSFER_TIMEOUT_MS) })).text();
  }

  /** The caller's sessions, newest first, each with a preview of its first message. */
  async sessions(): Promise<SessionSummary[]> {
    return (await this.api.json(apiRoutes.sessions, {})).sessions;
  }

  session(id: string): Promise<Session> {
    return this.api.json(apiRoutes.session, { params: { id } });
  }

  /** `sandboxImage`: one of the server's catalogue (`GET /v1/sandbox/images`); absent, the workspace's choice or the default. */
  async createSession(input: { workspaceId: string; model: string; title?: string; sandboxImage?: string }): Promise<string> {
    return (await this.api.json(apiRoutes.createSession, { body: input })).id;
  }

  /** Sets the session's title; null clears it (lists then show the first message). */
  async renameSession(id: string, title: string | null): Promise<void> {
    await this.api.send(apiRoutes.updateSession, { params: { id }, body: { title } });
  }

  /** 409 while a turn runs in it. */
  async deleteSession(id: string): Promise<void> {
    await this.api.send(apiRoutes.deleteSession, { params: { id } });
  }

  /** Starts a turn; answers its id. */
  async postMessage(sessionId: string, content: string, options: TurnOptions = {}): Promise<string> {
    return (await this.api.json(apiRoutes.postMessage, { params: { id: sessionId }, body: { content, ...options } })).turnId;
  }

  /** Asks whichever gateway runs the turn to stop it; it ends with `turn.cancelled`. 409 once it has ended. */
  async cancelTurn(sessionId: string, turnId: string): Promise<void> {
    await this.api.send(apiRoutes.cancelTurn, { params: { id: sessionId, turnId } });
  }

  /** Answers a permission question the agent is waiting on. */
  async answerPermission(sessionId: string, requestId: string, answer: PermissionAnswer): Promise<void> {
    await this.api.json(apiRoutes.answerPermission, { params: { id: sessionId, requestId }, body: answer });
  }

  /** The session's event stream after `after` (all of it without), then live; the caller's signal ends it. */
  events(sessionId: string, after: string | undefined, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (after) headers['last-event-id'] = after;
    return this.api.send(apiRoutes.events, { params: { id: sessionId }, query: { after }, headers, signal });
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

  /** Starts the chain as a turn of the session with its inputs; its steps stream like any turn's events. */
  async runChain(sessionId: string, name: string, inputs: Readonly<Record<string, string>>): Promise<string> {
    return (await this.api.json(apiRoutes.runChain, { params: { id: sessionId, name }, body: { inputs: { ...inputs } } })).turnId;
  }
}
