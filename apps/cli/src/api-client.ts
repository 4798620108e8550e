import {
  ApiCaller,
  type WorkspaceManifest,
  type WorkspaceSyncBody,
  type WorkspaceSyncResult,
  type answerPermissionBodySchema,
  type chainsSchema,
  type instructionsSchema,
  type meSchema,
  type modelsSchema,
  type noteSchema,
  type sandboxCheckSchema,
  type scopeRulesSchema,
  type sessionSchema,
  type sessionSummarySchema,
  type workspaceSummarySchema,
  apiRoutes,
} from '@weft/contracts';
import type { z } from 'zod';
import type { MyLimits, MyUsage, UsageFilter } from './accounting-schemas';
import { ProtocolError } from './errors';
import { GatewayHttp, TRANSFER_TIMEOUT_MS, type FetchFn } from './gateway-http';

/** The gateway waits up to 30 s for a sandbox worker's answer; this is a little longer. */
const SANDBOX_CHECK_TIMEOUT_MS = 40_000;

export type Me = z.infer<typeof meSchema>;
export type Models = z.infer<typeof modelsSchema>;
export type WorkspaceSummary = z.infer<typeof workspaceSummarySchema>;
export type Session = z.infer<typeof sessionSchema>;
export type SessionSummary = z.infer<typeof sessionSummarySchema>;
export type ScopeRules = z.infer<typeof scopeRulesSchema>;
export type Note = z.infer<typeof noteSchema>;
export type Instructions = z.infer<typeof instructionsSchema>;
export type ExportFormat = 'jsonl' | 'markdown';
export type ChainListing = z.infer<typeof chainsSchema>['chains'][number];
/** How a message runs: planning mode, or straight to the junior model. */
export interface TurnOptions {
  readonly mode?: 'chat' | 'plan';
  readonly to?: 'junior';
}
/** The scopes a user reads rules of; `server` is the admin's. */
export type RuleScope = { readonly scope: 'user' } | { readonly scope: 'workspace' | 'session'; readonly id: string };
export type PermissionAnswer = Pick<z.input<typeof answerPermissionBodySchema>, 'decision' | 'reason'>;

/** The gateway's public HTTP API (docs/api.md), one method per route the CLI uses, on the shared typed caller. */
export class ApiClient {
  private readonly api: ApiCaller;

  constructor(
    readonly baseUrl: string,
    key: string,
    fetchFn: FetchFn = fetch,
  ) {
    this.api = new ApiCaller(new GatewayHttp(baseUrl, key, fetchFn));
  }

  me(): Promise<Me> {
    return this.api.json(apiRoutes.me, {});
  }

  listModels(): Promise<Models> {
    return this.api.json(apiRoutes.models, {});
  }

  /** Runs `true` in a throwaway sandbox container; a typed 503 when no worker or engine can. */
  sandboxCheck(): Promise<z.infer<typeof sandboxCheckSchema>> {
    return this.api.json(apiRoutes.sandboxCheck, { signal: AbortSignal.timeout(SANDBOX_CHECK_TIMEOUT_MS) });
  }

  /** The caller's usage per model and UTC day. */
  usage(filter: UsageFilter = {}): Promise<MyUsage> {
    return this.api.json(apiRoutes.myUsage, { query: { ...filter } });
  }

  /** The caller's limits in effect (0: no limit) and the tokens counted towards today's. */
  limits(): Promise<MyLimits> {
    return this.api.json(apiRoutes.myLimits, {});
  }

  /** `name`: what the listing calls it (the folder's name). */
  async uploadWorkspace(archive: Uint8Array, name?: string): Promise<string> {
    const body = new Blob([archive as Uint8Array<ArrayBuffer>], { type: 'application/gzip' });
    const signal = AbortSignal.timeout(TRANSFER_TIMEOUT_MS);
    const { id } = await this.api.json(apiRoutes.createWorkspace, { query: { name }, body, contentType: 'application/gzip', signal });
    return id;
  }

  /** The caller's workspaces, newest first, with their size and last use. */
  async listWorkspaces(): Promise<WorkspaceSummary[]> {
    return (await this.api.json(apiRoutes.workspaces, {})).workspaces;
  }

  renameWorkspace(id: string, name: string): Promise<WorkspaceSummary> {
    return this.api.json(apiRoutes.renameWorkspace, { params: { id }, body: { name } });
  }

  /** 409 while a turn runs in it. */
  async deleteWorkspace(id: string): Promise<void> {
    await this.api.send(apiRoutes.deleteWorkspace, { params: { id } });
  }

  /** Every file (size, SHA-256), link and folder of the workspace outside .git and node_modules. */
  workspaceManifest(id: string): Promise<WorkspaceManifest> {
    return this.api.json(apiRoutes.workspaceManifest, { params: { id }, signal: AbortSignal.timeout(TRANSFER_TIMEOUT_MS) });
  }

  /** Writes the archive's entries and removes `deleted`, all or nothing; 409 while a turn runs in it. */
  syncWorkspace(id: string, change: WorkspaceSyncBody): Promise<WorkspaceSyncResult> {
    return this.api.json(apiRoutes.syncWorkspace, { params: { id }, body: change, signal: AbortSignal.timeout(TRANSFER_TIMEOUT_MS) });
  }

  /** The workspace as a tar.gz byte stream. */
  async downloadWorkspace(id: string): Promise<ReadableStream<Uint8Array>> {
    const response = await this.api.send(apiRoutes.workspaceArchive, { params: { id }, signal: AbortSignal.timeout(TRANSFER_TIMEOUT_MS) });
    if (!response.body) throw new ProtocolError('the gateway sent an empty archive');
    return response.body;
  }

  async createSession(input: { workspaceId: string; model: string; title?: string }): Promise<string> {
    const { id } = await this.api.json(apiRoutes.createSession, { body: input });
    return id;
  }

  getSession(id: string): Promise<Session> {
    return this.api.json(apiRoutes.session, { params: { id } });
  }

  /** The caller's sessions, newest first, each with a preview of its first message. */
  async listSessions(): Promise<SessionSummary[]> {
    return (await this.api.json(apiRoutes.sessions, {})).sessions;
  }

  async renameSession(id: string, title: string | null): Promise<void> {
    await this.api.send(apiRoutes.updateSession, { params: { id }, body: { title } });
  }

  /** 409 while a turn runs in it. */
  async deleteSession(id: string): Promise<void> {
    await this.api.send(apiRoutes.deleteSession, { params: { id } });
  }

  /** The session as the gateway exports it: JSONL for programs, Markdown for people. */
  async exportSession(id: string, format: ExportFormat): Promise<string> {
    return (await this.api.send(apiRoutes.exportSession, { params: { id }, query: { format }, signal: AbortSignal.timeout(TRANSFER_TIMEOUT_MS) })).text();
  }

  /** Asks whichever gateway runs the turn to stop it; it ends with `turn.cancelled`. 409 once it has ended. */
  async cancelTurn(sessionId: string, turnId: string): Promise<void> {
    await this.api.send(apiRoutes.cancelTurn, { params: { id: sessionId, turnId } });
  }

  /** Everything changed in the workspace since it was created, as a git diff ('' when nothing changed). */
  async workspacePatch(workspaceId: string): Promise<string> {
    return (await this.api.send(apiRoutes.workspacePatch, { params: { id: workspaceId }, signal: AbortSignal.timeout(TRANSFER_TIMEOUT_MS) })).text();
  }

  instructions(): Promise<Instructions> {
    return this.api.json(apiRoutes.instructions, {});
  }

  /** An empty `content` removes them. */
  setInstructions(content: string): Promise<Instructions> {
    return this.api.json(apiRoutes.setInstructions, { body: { content } });
  }

  permissionRules(target: RuleScope): Promise<ScopeRules> {
    if (target.scope === 'user') return this.api.json(apiRoutes.userRules, {});
    const route = target.scope === 'workspace' ? apiRoutes.workspaceRules : apiRoutes.sessionRules;
    return this.api.json(route, { params: { id: target.id } });
  }

  async postMessage(sessionId: string, content: string, options: TurnOptions = {}): Promise<string> {
    const { turnId } = await this.api.json(apiRoutes.postMessage, { params: { id: sessionId }, body: { content, ...options } });
    return turnId;
  }

  /** Starts a chain of the session's workspace (`.weft/chains/<name>.yaml`) with its inputs. */
  async runChain(sessionId: string, name: string, inputs: Readonly<Record<string, string>>): Promise<string> {
    const { turnId } = await this.api.json(apiRoutes.runChain, { params: { id: sessionId, name }, body: { inputs: { ...inputs } } });
    return turnId;
  }

  async listChains(sessionId: string): Promise<ChainListing[]> {
    return (await this.api.json(apiRoutes.chains, { params: { id: sessionId } })).chains;
  }

  /** The same without a session: listing creates nothing. */
  async listWorkspaceChains(workspaceId: string): Promise<ChainListing[]> {
    return (await this.api.json(apiRoutes.workspaceChains, { params: { id: workspaceId } })).chains;
  }

  /** The workspace's shared notes, oldest first. */
  async listNotes(workspaceId: string): Promise<Note[]> {
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

  /** Answers a permission question the agent is waiting on. */
  async answerPermission(sessionId: string, requestId: string, answer: PermissionAnswer): Promise<void> {
    await this.api.json(apiRoutes.answerPermission, { params: { id: sessionId, requestId }, body: answer });
  }

  /** Opens the session's SSE stream after `after` (exclusive); the caller owns the body and the signal. */
  openEvents(sessionId: string, after: string | undefined, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (after) headers['last-event-id'] = after;
    return this.api.send(apiRoutes.events, { params: { id: sessionId }, query: { after }, headers, signal });
  }
}
