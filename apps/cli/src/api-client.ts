import { type WorkspaceManifest, type WorkspaceSyncBody, type WorkspaceSyncResult, chatMessageSchema, modelInfoSchema, workspaceManifestSchema, workspaceSyncResultSchema } from '@weft/contracts';
import { z } from 'zod';
import { myLimitsSchema, myUsageSchema, type MyLimits, type MyUsage, type UsageFilter } from './accounting-schemas';
import { ProtocolError } from './errors';
import { GatewayHttp, TRANSFER_TIMEOUT_MS, jsonBody, queryString, type FetchFn } from './gateway-http';

const meSchema = z.object({ id: z.string(), name: z.string() });
const modelsSchema = z.object({ models: z.array(modelInfoSchema) });
const idSchema = z.object({ id: z.string() });
const workspaceSchema = z.object({ id: z.string(), name: z.string(), createdAt: z.string(), lastUsedAt: z.string(), files: z.number(), bytes: z.number() });
const workspacesSchema = z.object({ workspaces: z.array(workspaceSchema) });
export type WorkspaceSummary = z.infer<typeof workspaceSchema>;
const turnSchema = z.object({ turnId: z.string() });
/** What every view of a session carries. */
const sessionFields = {
  id: z.string(),
  workspaceId: z.string(),
  model: z.string(),
  title: z.string().nullish(),
  createdAt: z.string(),
  activeTurnId: z.string().nullish(),
};
const sessionSchema = z.object({
  ...sessionFields,
  lastEventId: z.string().nullish(),
  messages: z.array(chatMessageSchema),
});
const sessionListSchema = z.object({
  // `lastActivityAt`: gateways before it was added leave it out.
  sessions: z.array(z.object({ ...sessionFields, preview: z.string().nullish(), lastActivityAt: z.string().nullish() })),
});
const sandboxCheckSchema = z.object({ ok: z.literal(true), durationMs: z.number() });
/** The gateway waits up to 30 s for a sandbox worker's answer; this is a little longer. */
const SANDBOX_CHECK_TIMEOUT_MS = 40_000;
const instructionsSchema = z.object({ content: z.string(), updatedAt: z.string().nullable() });
const noteSchema = z.object({ id: z.string(), text: z.string(), source: z.string(), author: z.string(), createdAt: z.string() });
const notesSchema = z.object({ notes: z.array(noteSchema) });
const chainsSchema = z.object({
  chains: z.array(
    z.union([
      z.object({ name: z.string(), error: z.string() }),
      z.object({
        name: z.string(),
        description: z.string().nullable(),
        inputs: z.record(z.string(), z.object({ description: z.string().optional(), default: z.string().optional() })),
        steps: z.number(),
      }),
    ]),
  ),
});
const sessionPath = (sessionId: string) => `/v1/sessions/${encodeURIComponent(sessionId)}`;
const notesPath = (workspaceId: string) => `/v1/workspaces/${encodeURIComponent(workspaceId)}/notes`;
const ruleListsSchema = z.object({ allow: z.array(z.string()), ask: z.array(z.string()), deny: z.array(z.string()) });
const scopeRulesSchema = z.object({ scope: z.string(), rules: ruleListsSchema });

export type Me = z.infer<typeof meSchema>;
export type Models = z.infer<typeof modelsSchema>;
export type Session = z.infer<typeof sessionSchema>;
export type SessionSummary = z.infer<typeof sessionListSchema>['sessions'][number];
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
export interface PermissionAnswer {
  readonly decision: 'allow_once' | 'allow_always' | 'deny';
  readonly reason?: string;
}

/** The gateway's public HTTP API (docs/api.md), one typed method per route the CLI uses. */
export class ApiClient {
  private readonly http: GatewayHttp;

  constructor(
    readonly baseUrl: string,
    key: string,
    fetchFn: FetchFn = fetch,
  ) {
    this.http = new GatewayHttp(baseUrl, key, fetchFn);
  }

  me(): Promise<Me> {
    return this.http.json('GET', '/v1/me', meSchema);
  }

  listModels(): Promise<Models> {
    return this.http.json('GET', '/v1/models', modelsSchema);
  }

  /** Runs `true` in a throwaway sandbox container; a typed 503 when no worker or engine can. */
  sandboxCheck(): Promise<z.infer<typeof sandboxCheckSchema>> {
    return this.http.json('POST', '/v1/sandbox/check', sandboxCheckSchema, { signal: AbortSignal.timeout(SANDBOX_CHECK_TIMEOUT_MS) });
  }

  /** The caller's usage per model and UTC day. */
  usage(filter: UsageFilter = {}): Promise<MyUsage> {
    return this.http.json('GET', `/v1/me/usage${queryString({ ...filter })}`, myUsageSchema);
  }

  /** The caller's limits in effect (0: no limit) and the tokens counted towards today's. */
  limits(): Promise<MyLimits> {
    return this.http.json('GET', '/v1/me/limits', myLimitsSchema);
  }

  /** `name`: what the listing calls it (the folder's name). */
  async uploadWorkspace(archive: Uint8Array, name?: string): Promise<string> {
    const body = new Blob([archive as Uint8Array<ArrayBuffer>], { type: 'application/gzip' });
    const signal = AbortSignal.timeout(TRANSFER_TIMEOUT_MS);
    const query = name ? `?name=${encodeURIComponent(name)}` : '';
    const { id } = await this.http.json('POST', `/v1/workspaces${query}`, idSchema, { body, contentType: 'application/gzip', signal });
    return id;
  }

  /** The caller's workspaces, newest first, with their size and last use. */
  async listWorkspaces(): Promise<WorkspaceSummary[]> {
    return (await this.http.json('GET', '/v1/workspaces', workspacesSchema)).workspaces;
  }

  renameWorkspace(id: string, name: string): Promise<WorkspaceSummary> {
    return this.http.json('PATCH', `/v1/workspaces/${encodeURIComponent(id)}`, workspaceSchema, jsonBody({ name }));
  }

  /** 409 while a turn runs in it. */
  async deleteWorkspace(id: string): Promise<void> {
    await this.http.send('DELETE', `/v1/workspaces/${encodeURIComponent(id)}`, {});
  }

  /** Every file (size, SHA-256), link and folder of the workspace outside .git and node_modules. */
  workspaceManifest(id: string): Promise<WorkspaceManifest> {
    const signal = AbortSignal.timeout(TRANSFER_TIMEOUT_MS);
    return this.http.json('GET', `/v1/workspaces/${encodeURIComponent(id)}/manifest`, workspaceManifestSchema, { signal });
  }

  /** Writes the archive's entries and removes `deleted`, all or nothing; 409 while a turn runs in it. */
  syncWorkspace(id: string, change: WorkspaceSyncBody): Promise<WorkspaceSyncResult> {
    const signal = AbortSignal.timeout(TRANSFER_TIMEOUT_MS);
    return this.http.json('POST', `/v1/workspaces/${encodeURIComponent(id)}/sync`, workspaceSyncResultSchema, { ...jsonBody(change), signal });
  }

  /** The workspace as a tar.gz byte stream. */
  async downloadWorkspace(id: string): Promise<ReadableStream<Uint8Array>> {
    const signal = AbortSignal.timeout(TRANSFER_TIMEOUT_MS);
    const response = await this.http.send('GET', `/v1/workspaces/${encodeURIComponent(id)}/archive`, { signal });
    if (!response.body) throw new ProtocolError('the gateway sent an empty archive');
    return response.body;
  }

  async createSession(input: { workspaceId: string; model: string; title?: string }): Promise<string> {
    const { id } = await this.http.json('POST', '/v1/sessions', idSchema, jsonBody(input));
    return id;
  }

  getSession(id: string): Promise<Session> {
    return this.http.json('GET', `/v1/sessions/${encodeURIComponent(id)}`, sessionSchema);
  }

  /** The caller's sessions, newest first, each with a preview of its first message. */
  async listSessions(): Promise<SessionSummary[]> {
    return (await this.http.json('GET', '/v1/sessions', sessionListSchema)).sessions;
  }

  async renameSession(id: string, title: string | null): Promise<void> {
    await this.http.send('PATCH', sessionPath(id), jsonBody({ title }));
  }

  /** 409 while a turn runs in it. */
  async deleteSession(id: string): Promise<void> {
    await this.http.send('DELETE', sessionPath(id), {});
  }

  /** The session as the gateway exports it: JSONL for programs, Markdown for people. */
  exportSession(id: string, format: ExportFormat): Promise<string> {
    return this.http.text('GET', `${sessionPath(id)}/export?format=${format}`, { signal: AbortSignal.timeout(TRANSFER_TIMEOUT_MS) });
  }

  /** Asks whichever gateway runs the turn to stop it; it ends with `turn.cancelled`. 409 once it has ended. */
  async cancelTurn(sessionId: string, turnId: string): Promise<void> {
    await this.http.send('POST', `${sessionPath(sessionId)}/turns/${encodeURIComponent(turnId)}/cancel`, {});
  }

  /** Everything changed in the workspace since it was created, as a git diff ('' when nothing changed). */
  workspacePatch(workspaceId: string): Promise<string> {
    const signal = AbortSignal.timeout(TRANSFER_TIMEOUT_MS);
    return this.http.text('GET', `/v1/workspaces/${encodeURIComponent(workspaceId)}/patch`, { signal });
  }

  instructions(): Promise<Instructions> {
    return this.http.json('GET', '/v1/me/instructions', instructionsSchema);
  }

  /** An empty `content` removes them. */
  setInstructions(content: string): Promise<Instructions> {
    return this.http.json('PUT', '/v1/me/instructions', instructionsSchema, jsonBody({ content }));
  }

  permissionRules(target: RuleScope): Promise<ScopeRules> {
    const path = target.scope === 'user' ? '/v1/permissions/user' : `/v1/permissions/${target.scope}/${encodeURIComponent(target.id)}`;
    return this.http.json('GET', path, scopeRulesSchema);
  }

  async postMessage(sessionId: string, content: string, options: TurnOptions = {}): Promise<string> {
    const path = `/v1/sessions/${encodeURIComponent(sessionId)}/messages`;
    const { turnId } = await this.http.json('POST', path, turnSchema, jsonBody({ content, ...options }));
    return turnId;
  }

  /** Starts a chain of the session's workspace (`.weft/chains/<name>.yaml`) with its inputs. */
  async runChain(sessionId: string, name: string, inputs: Readonly<Record<string, string>>): Promise<string> {
    const path = `/v1/sessions/${encodeURIComponent(sessionId)}/chains/${encodeURIComponent(name)}`;
    const { turnId } = await this.http.json('POST', path, turnSchema, jsonBody({ inputs }));
    return turnId;
  }

  async listChains(sessionId: string): Promise<ChainListing[]> {
    const { chains } = await this.http.json('GET', `/v1/sessions/${encodeURIComponent(sessionId)}/chains`, chainsSchema);
    return chains;
  }

  /** The workspace's shared notes, oldest first. */
  async listNotes(workspaceId: string): Promise<Note[]> {
    const { notes } = await this.http.json('GET', notesPath(workspaceId), notesSchema);
    return notes;
  }

  async addNote(workspaceId: string, text: string): Promise<Note> {
    return this.http.json('POST', notesPath(workspaceId), noteSchema, jsonBody({ text }));
  }

  async deleteNote(workspaceId: string, noteId: string): Promise<void> {
    await this.http.send('DELETE', `${notesPath(workspaceId)}/${encodeURIComponent(noteId)}`, {});
  }

  async clearNotes(workspaceId: string): Promise<number> {
    const { deleted } = await this.http.json('DELETE', notesPath(workspaceId), z.object({ deleted: z.number() }));
    return deleted;
  }

  /** Answers a permission question the agent is waiting on. */
  async answerPermission(sessionId: string, requestId: string, answer: PermissionAnswer): Promise<void> {
    const path = `/v1/sessions/${encodeURIComponent(sessionId)}/permissions/${encodeURIComponent(requestId)}`;
    await this.http.json('POST', path, z.object({ decision: z.string() }), jsonBody(answer));
  }

  /** Opens the session's SSE stream after `after` (exclusive); the caller owns the body and the signal. */
  openEvents(sessionId: string, after: string | undefined, signal: AbortSignal): Promise<Response> {
    const query = after ? `?after=${encodeURIComponent(after)}` : '';
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (after) headers['last-event-id'] = after;
    return this.http.send('GET', `/v1/sessions/${encodeURIComponent(sessionId)}/events${query}`, { headers, signal });
  }
}
