import {
  ApiCaller,
  TRANSFER_TIMEOUT_MS,
  type ChainListing,
  type Instructions,
  type ScopeRules,
  WeftApi,
  type WorkspaceManifest,
  type WorkspaceSummary,
  type WorkspaceSyncBody,
  type WorkspaceSyncResult,
  type sandboxCheckSchema,
  apiRoutes,
} from '@weft/contracts';
import type { z } from 'zod';
import type { MyLimits, MyUsage, UsageFilter } from './accounting-schemas';
import { ProtocolError } from './errors';
import { GatewayHttp, type FetchFn } from './gateway-http';

export type { ChainListing, Instructions, ListedModel, Me, Note, PermissionAnswer, ScopeRules, Session, SessionSummary, TurnOptions, WorkspaceSummary } from '@weft/contracts';

/** The gateway waits up to 30 s for a sandbox worker's answer; this is a little longer. */
/** `true`, then an npm and a pip fetch of up to 45 s each in a container that may have to start. */
const SANDBOX_CHECK_TIMEOUT_MS = 150_000;

export type ExportFormat = 'jsonl' | 'markdown';
/** The scopes a user reads rules of; `server` is the admin's. */
export type RuleScope = { readonly scope: 'user' } | { readonly scope: 'workspace' | 'session'; readonly id: string };

/** The gateway's public HTTP API (docs/api.md): the routes both clients call (WeftApi) and those only the CLI does. */
export class ApiClient extends WeftApi {
  constructor(
    readonly baseUrl: string,
    key: string,
    fetchFn: FetchFn = fetch,
  ) {
    super(new ApiCaller(new GatewayHttp(baseUrl, key, fetchFn)));
  }

  /** Runs `true` in a throwaway sandbox container (a typed 503 when no worker or engine can), then the package checks. */
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
  uploadArchive(archive: Uint8Array, name?: string): Promise<string> {
    return this.uploadWorkspace(new Blob([archive as Uint8Array<ArrayBuffer>], { type: 'application/gzip' }), name);
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

  /** The session as the gateway exports it: JSONL for programs, Markdown for people. */
  async exportSession(id: string, format: ExportFormat): Promise<string> {
    return (await this.api.send(apiRoutes.exportSession, { params: { id }, query: { format }, signal: AbortSignal.timeout(TRANSFER_TIMEOUT_MS) })).text();
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

  /** Replaces the session's own rules (`weft run --allow/--deny` adds to them). */
  setSessionRules(sessionId: string, rules: { allow: string[]; ask: string[]; deny: string[] }): Promise<ScopeRules> {
    return this.api.json(apiRoutes.setSessionRules, { params: { id: sessionId }, body: rules });
  }

  /** The chains of a workspace without a session: listing creates nothing. */
  async listWorkspaceChains(workspaceId: string): Promise<ChainListing[]> {
    return (await this.api.json(apiRoutes.workspaceChains, { params: { id: workspaceId } })).chains;
  }
}
