import { z } from 'zod';
import { adminModelSchema, adminModelsSchema, modelSettingsSchema, pullModelBodySchema, removedModelSchema } from '../admin-models';
import { workspaceSyncBodySchema, workspaceManifestSchema, workspaceSyncResultSchema } from '../workspace-sync';
import { auditPageSchema, auditQuerySchema } from './audit';
import { addNoteBodySchema, createWorkspaceQuerySchema, expireWorkspacesBodySchema, limitOverridesBodySchema, putInstructionsBodySchema, renameWorkspaceBodySchema } from './bodies';
import { answerPermissionBodySchema, putRulesBodySchema } from './permission-bodies';
import * as answers from './responses';
import { createSessionBodySchema, exportQuerySchema, postMessageBodySchema, runChainBodySchema, updateSessionBodySchema } from './session-bodies';
import { createWorkspaceJsonBodySchema, serverSettingsSchema } from './settings';
import { cliSignInQuerySchema, cliSignInTokenBodySchema, cliSignInTokenSchema, deviceSignInPollBodySchema, deviceSignInPollSchema, deviceSignInStartSchema, webSessionSchema } from './sign-in';
import { createKeyBodySchema, createUserBodySchema, deleteUserBodySchema, updateUserBodySchema } from './user-bodies';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** Who may call a route: any user's key, an admin's key or the bootstrap token, or anyone. */
export type RouteAuth = 'user' | 'admin' | 'none';

/**
 * One route of the gateway's HTTP API. `path` is written as Express (and so Nest) registers it:
 * `:id` a segment, `*path` one or more segments, `{…}` an optional part.
 */
export interface ApiRoute {
  readonly method: HttpMethod;
  readonly path: string;
  readonly summary: string;
  /** The section of docs/api.md, and the OpenAPI tag. */
  readonly tag: string;
  readonly auth: RouteAuth;
  /** The success status; 200 unless said. */
  readonly status?: number;
  readonly query?: z.ZodType;
  /** A JSON body's schema; `gzip` for a tar.gz upload. */
  readonly body?: z.ZodType | 'gzip';
  /** A JSON body the route takes instead of its `gzip` one. */
  readonly jsonInstead?: z.ZodType;
  /** A JSON answer's schema; a string is the content type of an answer that is not JSON. */
  readonly response?: z.ZodType | string;
  /** A route that speaks another vendor's API: its own error shape and schemas. */
  readonly compatible?: 'openai' | 'anthropic';
}

const route = <const R extends ApiRoute>(r: R): R => r;
const EVENT_STREAM = 'text/event-stream';
const GZIP = 'application/gzip';
const NDJSON = 'application/x-ndjson';

/**
 * Every route the gateway serves, in the order of docs/api.md. The gateway's tests hold it to the
 * routes it registers; `/openapi.json` and the clients are built from it.
 */
export const apiRoutes = {
  // ---- Service --------------------------------------------------------------------------------
  webPage: route({ method: 'GET', path: '/', summary: 'The web client', tag: 'Service', auth: 'none', response: 'text/html' }),
  webAsset: route({ method: 'GET', path: '/assets/*name', summary: "A file of the web client's build", tag: 'Service', auth: 'none', response: 'application/octet-stream' }),
  openApi: route({ method: 'GET', path: '/openapi.json', summary: 'This API as an OpenAPI 3.1 document', tag: 'Service', auth: 'none', response: 'application/json' }),
  healthz: route({ method: 'GET', path: '/healthz', summary: 'Liveness: the gateway process answers', tag: 'Service', auth: 'none', response: 'application/json' }),
  readyz: route({ method: 'GET', path: '/readyz', summary: 'Readiness: Redis, NATS and the workers; 503 with the failing checks otherwise', tag: 'Service', auth: 'none', response: 'application/json' }),
  metrics: route({ method: 'GET', path: '/metrics', summary: 'Prometheus metrics (usage totals, queue depths)', tag: 'Service', auth: 'admin', response: 'text/plain' }),

  // ---- Me ---------------------------------------------------------------------------------------
  me: route({ method: 'GET', path: '/v1/me', summary: "The key's user", tag: 'Me', auth: 'user', response: answers.meSchema }),
  myKeys: route({ method: 'GET', path: '/v1/me/keys', summary: "The caller's own keys (prefix, name, created, expiry, last use; never the key)", tag: 'Me', auth: 'user', response: answers.myKeysSchema }),
  createMyKey: route({ method: 'POST', path: '/v1/me/keys', summary: 'Create a key for oneself, named and with an optional expiry; the key is shown once', tag: 'Me', auth: 'user', status: 201, body: createKeyBodySchema, response: answers.createdKeySchema }),
  revokeMyKey: route({ method: 'DELETE', path: '/v1/me/keys/:keyId', summary: 'Revoke one of the own keys at once; 409 for the key the request came with', tag: 'Me', auth: 'user', status: 204 }),
  myUsage: route({ method: 'GET', path: '/v1/me/usage', summary: "The caller's usage per model and UTC day (`from`, `to`, `model`)", tag: 'Me', auth: 'user', response: answers.myUsageSchema }),
  myLimits: route({ method: 'GET', path: '/v1/me/limits', summary: "The caller's quotas in effect (0: none) and today's tokens", tag: 'Me', auth: 'user', response: answers.myLimitsSchema }),
  instructions: route({ method: 'GET', path: '/v1/me/instructions', summary: 'Personal instructions, added to every session of the user', tag: 'Me', auth: 'user', response: answers.instructionsSchema }),
  setInstructions: route({ method: 'PUT', path: '/v1/me/instructions', summary: 'Replace the personal instructions; empty removes them', tag: 'Me', auth: 'user', body: putInstructionsBodySchema, response: answers.instructionsSchema }),
  myMcp: route({ method: 'GET', path: '/v1/me/mcp', summary: "The user's MCP servers (`mcpServers`, as in .weft/mcp.json)", tag: 'Me', auth: 'user', response: 'application/json' }),
  setMyMcp: route({ method: 'PUT', path: '/v1/me/mcp', summary: "Replace the user's MCP servers", tag: 'Me', auth: 'user', response: 'application/json' }),
  clearMyMcp: route({ method: 'DELETE', path: '/v1/me/mcp', summary: "Remove the user's MCP servers", tag: 'Me', auth: 'user', status: 204 }),

  webSession: route({ method: 'GET', path: '/v1/auth/session', summary: 'Whether sign-in through the identity provider is on; the browser session\'s user and CSRF token (nulls when not signed in)', tag: 'Me', auth: 'none', response: webSessionSchema }),
  oidcLogin: route({ method: 'GET', path: '/v1/auth/oidc/login', summary: 'Starts browser sign-in: 302 to the identity provider (authorization code with PKCE); 404 when OIDC is not configured', tag: 'Me', auth: 'none', status: 302 }),
  oidcCallback: route({ method: 'GET', path: '/v1/auth/oidc/callback', summary: "The provider's redirect back: checks state, nonce and the ID token, sets the HttpOnly session cookie and 302s to the page; a refusal is an HTML page (401, 403)", tag: 'Me', auth: 'none', status: 302 }),
  deviceSignIn: route({ method: 'POST', path: '/v1/auth/device', summary: '`weft login`: starts the device authorization grant at the identity provider; the user confirms the code there', tag: 'Me', auth: 'none', response: deviceSignInStartSchema }),
  cliSignIn: route({ method: 'GET', path: '/v1/auth/oidc/cli-login', summary: "`weft login` without the device grant: 302 to the identity provider; after sign-in, 302 to the CLI's loopback `redirect` with a one-time code", tag: 'Me', auth: 'none', status: 302, query: cliSignInQuerySchema }),
  cliSignInToken: route({ method: 'POST', path: '/v1/auth/oidc/cli-token', summary: "The loopback redirect's one-time code and the PKCE verifier for an API key of the user's own, shown once", tag: 'Me', auth: 'none', body: cliSignInTokenBodySchema, response: cliSignInTokenSchema }),
  deviceSignInPoll: route({ method: 'POST', path: '/v1/auth/device/poll', summary: 'Whether the user has confirmed; then an API key of their own, shown once', tag: 'Me', auth: 'none', body: deviceSignInPollBodySchema, response: deviceSignInPollSchema }),
  logout: route({ method: 'POST', path: '/v1/auth/logout', summary: "Ends the browser's session (cookie and `x-weft-csrf` header)", tag: 'Me', auth: 'user', status: 204 }),

  // ---- Models and sandbox -----------------------------------------------------------------------
  models: route({ method: 'GET', path: '/v1/models', summary: 'The models the fleet serves, with their roles and context sizes', tag: 'Models', auth: 'user', response: answers.modelsSchema }),
  sandboxImages: route({ method: 'GET', path: '/v1/sandbox/images', summary: "The server's sandbox image catalogue", tag: 'Sandbox', auth: 'user', response: 'application/json' }),
  sandboxCheck: route({ method: 'POST', path: '/v1/sandbox/check', summary: 'Runs `true` in a throwaway sandbox container (503 when none can), then an npm and a pip install check on the network new sessions get', tag: 'Sandbox', auth: 'user', response: answers.sandboxCheckSchema }),

  // ---- Workspaces -------------------------------------------------------------------------------
  settings: route({ method: 'GET', path: '/v1/settings', summary: 'What this server allows clients: git import hosts, the upload limit', tag: 'Workspaces', auth: 'user', response: serverSettingsSchema }),
  createWorkspace: route({ method: 'POST', path: '/v1/workspaces', summary: 'A workspace from a tar.gz, a git repository on an allowed host (JSON `{ git }`), or empty (`{}`)', tag: 'Workspaces', auth: 'user', status: 201, query: createWorkspaceQuerySchema, body: 'gzip', jsonInstead: createWorkspaceJsonBodySchema, response: answers.createdSchema }),
  workspaces: route({ method: 'GET', path: '/v1/workspaces', summary: "The caller's workspaces, with size and last use", tag: 'Workspaces', auth: 'user', response: answers.workspacesSchema }),
  workspace: route({ method: 'GET', path: '/v1/workspaces/:id', summary: 'One workspace', tag: 'Workspaces', auth: 'user', response: answers.workspaceSummarySchema }),
  renameWorkspace: route({ method: 'PATCH', path: '/v1/workspaces/:id', summary: 'Rename a workspace', tag: 'Workspaces', auth: 'user', body: renameWorkspaceBodySchema, response: answers.workspaceSummarySchema }),
  deleteWorkspace: route({ method: 'DELETE', path: '/v1/workspaces/:id', summary: 'Delete a workspace; 409 while a turn runs in it', tag: 'Workspaces', auth: 'user', status: 204 }),
  workspaceManifest: route({ method: 'GET', path: '/v1/workspaces/:id/manifest', summary: 'Every file (size, SHA-256), link and folder, for a sync', tag: 'Workspaces', auth: 'user', response: workspaceManifestSchema }),
  syncWorkspace: route({ method: 'POST', path: '/v1/workspaces/:id/sync', summary: 'Write changed files and remove deleted ones, all or nothing', tag: 'Workspaces', auth: 'user', body: workspaceSyncBodySchema, response: workspaceSyncResultSchema }),
  workspaceFiles: route({ method: 'GET', path: '/v1/workspaces/:id/files{/*path}', summary: "A folder's entries as JSON, or a file's bytes", tag: 'Workspaces', auth: 'user', response: answers.folderSchema }),
  workspaceArchive: route({ method: 'GET', path: '/v1/workspaces/:id/archive', summary: 'The workspace as a tar.gz', tag: 'Workspaces', auth: 'user', response: GZIP }),
  workspacePatch: route({ method: 'GET', path: '/v1/workspaces/:id/patch', summary: 'Everything changed since upload, as a git diff', tag: 'Workspaces', auth: 'user', response: 'text/x-diff' }),
  notes: route({ method: 'GET', path: '/v1/workspaces/:id/notes', summary: "The workspace's shared notes, oldest first", tag: 'Workspaces', auth: 'user', response: answers.notesSchema }),
  addNote: route({ method: 'POST', path: '/v1/workspaces/:id/notes', summary: 'Add a note every model in the workspace reads', tag: 'Workspaces', auth: 'user', status: 201, body: addNoteBodySchema, response: answers.noteSchema }),
  clearNotes: route({ method: 'DELETE', path: '/v1/workspaces/:id/notes', summary: 'Remove every note', tag: 'Workspaces', auth: 'user', response: answers.notesDeletedSchema }),
  deleteNote: route({ method: 'DELETE', path: '/v1/workspaces/:id/notes/:noteId', summary: 'Remove one note', tag: 'Workspaces', auth: 'user', status: 204 }),

  // ---- Sessions ---------------------------------------------------------------------------------
  createSession: route({ method: 'POST', path: '/v1/sessions', summary: 'Start a session on a workspace with a model', tag: 'Sessions', auth: 'user', status: 201, body: createSessionBodySchema, response: answers.createdSchema }),
  sessions: route({ method: 'GET', path: '/v1/sessions', summary: "The caller's sessions, newest first, with previews", tag: 'Sessions', auth: 'user', response: answers.sessionsSchema }),
  session: route({ method: 'GET', path: '/v1/sessions/:id', summary: 'A session with its messages', tag: 'Sessions', auth: 'user', response: answers.sessionSchema }),
  updateSession: route({ method: 'PATCH', path: '/v1/sessions/:id', summary: "Set a session's title, iteration cap or planning mode", tag: 'Sessions', auth: 'user', body: updateSessionBodySchema, response: 'application/json' }),
  deleteSession: route({ method: 'DELETE', path: '/v1/sessions/:id', summary: 'Delete a session; 409 while a turn runs', tag: 'Sessions', auth: 'user', status: 204 }),
  exportSession: route({ method: 'GET', path: '/v1/sessions/:id/export', summary: 'The session as JSONL (every stored event) or Markdown', tag: 'Sessions', auth: 'user', query: exportQuerySchema, response: NDJSON }),
  sessionAudit: route({ method: 'GET', path: '/v1/sessions/:id/audit', summary: "The session's tool calls and permission decisions as JSONL", tag: 'Sessions', auth: 'user', response: NDJSON }),
  postMessage: route({ method: 'POST', path: '/v1/sessions/:id/messages', summary: 'Send a message: starts a turn, whose events stream on /events', tag: 'Sessions', auth: 'user', status: 202, body: postMessageBodySchema, response: answers.turnStartedSchema }),
  cancelTurn: route({ method: 'POST', path: '/v1/sessions/:id/turns/:turnId/cancel', summary: 'Stop a running turn; it ends with turn.cancelled', tag: 'Sessions', auth: 'user', status: 202, response: 'application/json' }),
  events: route({ method: 'GET', path: '/v1/sessions/:id/events', summary: "The session's events as Server-Sent Events, after `Last-Event-ID` or `?after=`", tag: 'Sessions', auth: 'user', response: EVENT_STREAM }),
  chains: route({ method: 'GET', path: '/v1/sessions/:id/chains', summary: "The chains of the session's workspace (.weft/chains)", tag: 'Sessions', auth: 'user', response: answers.chainsSchema }),
  workspaceChains: route({ method: 'GET', path: '/v1/workspaces/:id/chains', summary: "The workspace's chains (.weft/chains), without a session", tag: 'Workspaces', auth: 'user', response: answers.chainsSchema }),
  runChain: route({ method: 'POST', path: '/v1/sessions/:id/chains/:name', summary: 'Run a chain with its inputs as a turn', tag: 'Sessions', auth: 'user', status: 202, body: runChainBodySchema, response: answers.turnStartedSchema }),
  sessionMcp: route({ method: 'GET', path: '/v1/sessions/:id/mcp', summary: "The session's MCP servers and their tools", tag: 'Sessions', auth: 'user', response: 'application/json' }),

  // ---- Permissions ------------------------------------------------------------------------------
  pendingPermissions: route({ method: 'GET', path: '/v1/sessions/:id/permissions', summary: 'Permission requests the agent is waiting on', tag: 'Permissions', auth: 'user', response: 'application/json' }),
  answerPermission: route({ method: 'POST', path: '/v1/sessions/:id/permissions/:requestId', summary: 'Allow once, allow always (stores rules) or deny', tag: 'Permissions', auth: 'user', body: answerPermissionBodySchema, response: answers.permissionAnsweredSchema }),
  userRules: route({ method: 'GET', path: '/v1/permissions/user', summary: "The caller's own rules", tag: 'Permissions', auth: 'user', response: answers.scopeRulesSchema }),
  setUserRules: route({ method: 'PUT', path: '/v1/permissions/user', summary: "Replace the caller's own rules", tag: 'Permissions', auth: 'user', body: putRulesBodySchema, response: answers.scopeRulesSchema }),
  workspaceRules: route({ method: 'GET', path: '/v1/permissions/workspace/:id', summary: "A workspace's rules, and those of its .weft/settings.json", tag: 'Permissions', auth: 'user', response: answers.scopeRulesSchema }),
  setWorkspaceRules: route({ method: 'PUT', path: '/v1/permissions/workspace/:id', summary: "Replace a workspace's rules", tag: 'Permissions', auth: 'user', body: putRulesBodySchema, response: answers.scopeRulesSchema }),
  sessionRules: route({ method: 'GET', path: '/v1/permissions/session/:id', summary: "A session's rules", tag: 'Permissions', auth: 'user', response: answers.scopeRulesSchema }),
  setSessionRules: route({ method: 'PUT', path: '/v1/permissions/session/:id', summary: "Replace a session's rules", tag: 'Permissions', auth: 'user', body: putRulesBodySchema, response: answers.scopeRulesSchema }),

  // ---- Admin ------------------------------------------------------------------------------------
  serverRules: route({ method: 'GET', path: '/v1/admin/permissions', summary: 'The server rules (configured and stored)', tag: 'Admin', auth: 'admin', response: answers.scopeRulesSchema }),
  setServerRules: route({ method: 'PUT', path: '/v1/admin/permissions', summary: 'Replace the stored server rules', tag: 'Admin', auth: 'admin', body: putRulesBodySchema, response: answers.scopeRulesSchema }),
  users: route({ method: 'GET', path: '/v1/admin/users', summary: 'Every user with their keys (prefix, name, created, last used)', tag: 'Admin', auth: 'admin', response: answers.adminUsersSchema }),
  createUser: route({ method: 'POST', path: '/v1/admin/users', summary: 'Create a user; names are unique', tag: 'Admin', auth: 'admin', status: 201, body: createUserBodySchema, response: answers.createdUserSchema }),
  user: route({ method: 'GET', path: '/v1/admin/users/:id', summary: 'One user with their keys', tag: 'Admin', auth: 'admin', response: answers.adminUserSchema }),
  updateUser: route({ method: 'PATCH', path: '/v1/admin/users/:id', summary: 'Disable or enable a user (cancels their turns), or change their role', tag: 'Admin', auth: 'admin', body: updateUserBodySchema, response: answers.updatedUserSchema }),
  deleteUser: route({ method: 'DELETE', path: '/v1/admin/users/:id', summary: 'Delete a user and everything they own; `confirm` is their name', tag: 'Admin', auth: 'admin', body: deleteUserBodySchema, response: answers.deletedUserSchema }),
  createKey: route({ method: 'POST', path: '/v1/admin/users/:id/keys', summary: 'Create a named key with an optional expiry; the key is shown once', tag: 'Admin', auth: 'admin', status: 201, body: createKeyBodySchema, response: answers.createdKeySchema }),
  revokeKey: route({ method: 'DELETE', path: '/v1/admin/users/:id/keys/:keyId', summary: 'Revoke a key at once', tag: 'Admin', auth: 'admin', status: 204 }),
  userLimits: route({ method: 'GET', path: '/v1/admin/users/:id/limits', summary: "A user's quotas: defaults, overrides, effective", tag: 'Admin', auth: 'admin', response: answers.userLimitsSchema }),
  setUserLimits: route({ method: 'PUT', path: '/v1/admin/users/:id/limits', summary: "Replace a user's quota overrides and weight", tag: 'Admin', auth: 'admin', body: limitOverridesBodySchema, response: answers.userLimitsSchema }),
  allUsage: route({ method: 'GET', path: '/v1/admin/usage', summary: 'Usage of all users (`from`, `to`, `model`, `user`; `format=csv`)', tag: 'Admin', auth: 'admin', response: answers.allUsageSchema }),
  audit: route({ method: 'GET', path: '/v1/admin/audit', summary: 'The audit trail, newest first: tool calls (who, session, tool, arguments, decision, outcome) and admin actions; filters `user`, `session`, `kind`, `action`, `from`, `to`; pages by `before`', tag: 'Admin', auth: 'admin', query: auditQuerySchema, response: auditPageSchema }),
  bootstrapToken: route({ method: 'GET', path: '/v1/admin/bootstrap-token', summary: "The bootstrap token's state", tag: 'Admin', auth: 'admin', response: answers.bootstrapTokenSchema }),
  rotateBootstrapToken: route({ method: 'POST', path: '/v1/admin/bootstrap-token/rotate', summary: 'A new bootstrap token, shown once; the old one stops working', tag: 'Admin', auth: 'admin', status: 201, response: answers.rotatedTokenSchema }),
  disableBootstrapToken: route({ method: 'DELETE', path: '/v1/admin/bootstrap-token', summary: 'Turn the bootstrap token off (needs an enabled admin user)', tag: 'Admin', auth: 'admin', response: answers.bootstrapTokenSchema }),
  expireWorkspaces: route({ method: 'POST', path: '/v1/admin/workspaces/expire', summary: 'Delete (or preview) workspaces idle for `idleDays`', tag: 'Admin', auth: 'admin', body: expireWorkspacesBodySchema, response: 'application/json' }),
  fleet: route({ method: 'GET', path: '/v1/admin/fleet', summary: 'Inference workers: host, GPU, models, free sequences, last heartbeat', tag: 'Admin', auth: 'admin', response: answers.fleetSchema }),
  adminModels: route({ method: 'GET', path: '/v1/admin/models', summary: 'The model registry: models of the config file and pulled ones, with what their GGUF says', tag: 'Admin', auth: 'admin', response: adminModelsSchema }),
  pullModel: route({ method: 'POST', path: '/v1/admin/models/pull', summary: 'Download a GGUF (`hf:owner/repo/file.gguf` or a URL) into the models volume, resuming a partial one, verify its size and SHA-256, and register it; progress as NDJSON lines, the last `done` or `error`', tag: 'Admin', auth: 'admin', body: pullModelBodySchema, response: NDJSON }),
  setModel: route({ method: 'PATCH', path: '/v1/admin/models/:id', summary: "Change a pulled model's settings (context size, sequences, GPU layers…); the workers reload it", tag: 'Admin', auth: 'admin', body: modelSettingsSchema, response: adminModelSchema }),
  removeModel: route({ method: 'DELETE', path: '/v1/admin/models/:id', summary: 'Unregister a pulled model and delete its GGUF (`?keepFile=true` keeps the file)', tag: 'Admin', auth: 'admin', query: z.strictObject({ keepFile: z.enum(['true', 'false']).optional() }), response: removedModelSchema }),
  backup: route({ method: 'GET', path: '/v1/admin/backup', summary: 'A backup as a tar.gz: the Redis store (each key read atomically), every workspace, a manifest with the stored format version', tag: 'Admin', auth: 'admin', response: GZIP }),
  restore: route({ method: 'POST', path: '/v1/admin/restore', summary: 'Restore a backup tar.gz into an empty store (`?force=true` empties a store that has users first), migrating it to this version', tag: 'Admin', auth: 'admin', body: 'gzip', response: 'application/json' }),

  // ---- Compatible APIs --------------------------------------------------------------------------
  openAiModels: route({ method: 'GET', path: '/openai/v1/models', summary: 'OpenAI: list models', tag: 'OpenAI-compatible', auth: 'user', compatible: 'openai', response: 'application/json' }),
  openAiModel: route({ method: 'GET', path: '/openai/v1/models/*id', summary: 'OpenAI: one model', tag: 'OpenAI-compatible', auth: 'user', compatible: 'openai', response: 'application/json' }),
  openAiChat: route({ method: 'POST', path: '/openai/v1/chat/completions', summary: 'OpenAI: chat completions, streamed or not, with tools', tag: 'OpenAI-compatible', auth: 'user', compatible: 'openai', response: 'application/json' }),
  openAiCompletions: route({ method: 'POST', path: '/openai/v1/completions', summary: 'OpenAI: legacy completions', tag: 'OpenAI-compatible', auth: 'user', compatible: 'openai', response: 'application/json' }),
  openAiEmbeddings: route({ method: 'POST', path: '/openai/v1/embeddings', summary: 'OpenAI: embeddings', tag: 'OpenAI-compatible', auth: 'user', compatible: 'openai', response: 'application/json' }),
  openAiResponses: route({ method: 'POST', path: '/openai/v1/responses', summary: 'OpenAI: Responses API, streamed (typed events) or not, with tools; stored per user unless `store: false`', tag: 'OpenAI-compatible', auth: 'user', compatible: 'openai', response: 'application/json' }),
  openAiResponseInputTokens: route({ method: 'POST', path: '/openai/v1/responses/input_tokens', summary: 'OpenAI: count a Responses request’s input tokens', tag: 'OpenAI-compatible', auth: 'user', compatible: 'openai', response: 'application/json' }),
  openAiResponse: route({ method: 'GET', path: '/openai/v1/responses/:id', summary: 'OpenAI: one of the caller’s stored responses', tag: 'OpenAI-compatible', auth: 'user', compatible: 'openai', response: 'application/json' }),
  openAiDeleteResponse: route({ method: 'DELETE', path: '/openai/v1/responses/:id', summary: 'OpenAI: delete a stored response', tag: 'OpenAI-compatible', auth: 'user', compatible: 'openai', response: 'application/json' }),
  openAiCancelResponse: route({ method: 'POST', path: '/openai/v1/responses/:id/cancel', summary: 'OpenAI: cancel a stored response in progress; 400 once finished', tag: 'OpenAI-compatible', auth: 'user', compatible: 'openai', response: 'application/json' }),
  openAiResponseInputItems: route({ method: 'GET', path: '/openai/v1/responses/:id/input_items', summary: 'OpenAI: the input items of a stored response', tag: 'OpenAI-compatible', auth: 'user', compatible: 'openai', response: 'application/json' }),
  anthropicModels: route({ method: 'GET', path: '/anthropic/v1/models', summary: 'Anthropic: list models', tag: 'Anthropic-compatible', auth: 'user', compatible: 'anthropic', response: 'application/json' }),
  anthropicMessages: route({ method: 'POST', path: '/anthropic/v1/messages', summary: 'Anthropic: messages, streamed or not, with tools', tag: 'Anthropic-compatible', auth: 'user', compatible: 'anthropic', response: 'application/json' }),
  anthropicCountTokens: route({ method: 'POST', path: '/anthropic/v1/messages/count_tokens', summary: 'Anthropic: count a request’s input tokens', tag: 'Anthropic-compatible', auth: 'user', compatible: 'anthropic', response: 'application/json' }),
  anthropicHello: route({ method: 'GET', path: '/anthropic/api/hello', summary: 'Anthropic: connectivity check (Claude Code sends HEAD), no key asked', tag: 'Anthropic-compatible', auth: 'none', compatible: 'anthropic', response: 'application/json' }),
} as const satisfies Record<string, ApiRoute>;

export type ApiRouteName = keyof typeof apiRoutes;
