import { chatMessageSchema, modelInfoSchema } from '@weft/contracts';
import { z } from 'zod';
import { ApiError, ConnectionError, ProtocolError } from './errors';

/** Plain requests; uploads and downloads get longer, the event stream gets an idle timer instead. */
export const REQUEST_TIMEOUT_MS = 30_000;
export const TRANSFER_TIMEOUT_MS = 10 * 60_000;

const meSchema = z.object({ id: z.string(), name: z.string() });
const modelsSchema = z.object({ models: z.array(modelInfoSchema) });
const idSchema = z.object({ id: z.string() });
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
  sessions: z.array(z.object({ ...sessionFields, preview: z.string().nullish() })),
});
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
const notesPath = (workspaceId: string) => `/v1/workspaces/${encodeURIComponent(workspaceId)}/notes`;
const ruleListsSchema = z.object({ allow: z.array(z.string()), ask: z.array(z.string()), deny: z.array(z.string()) });
const scopeRulesSchema = z.object({ scope: z.string(), rules: ruleListsSchema });
const wireErrorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
});

export type Me = z.infer<typeof meSchema>;
export type Models = z.infer<typeof modelsSchema>;
export type Session = z.infer<typeof sessionSchema>;
export type SessionSummary = z.infer<typeof sessionListSchema>['sessions'][number];
export type ScopeRules = z.infer<typeof scopeRulesSchema>;
export type Note = z.infer<typeof noteSchema>;
export type ChainListing = z.infer<typeof chainsSchema>['chains'][number];
/** How a message runs: planning mode, or straight to the junior model. */
export interface TurnOptions {
  readonly mode?: 'chat' | 'plan';
  readonly to?: 'junior';
}
/** The scopes a user reads rules of; `server` is the admin's. */
export type RuleScope = { readonly scope: 'user' } | { readonly scope: 'workspace' | 'session'; readonly id: string };
export type FetchFn = typeof fetch;
export interface PermissionAnswer {
  readonly decision: 'allow_once' | 'allow_always' | 'deny';
  readonly reason?: string;
}

interface RequestOptions {
  body?: RequestInit['body'];
  contentType?: string;
  headers?: Record<string, string>;
  /** Defaults to a REQUEST_TIMEOUT_MS timeout. */
  signal?: AbortSignal;
}

/** The gateway's public HTTP API (docs/api.md), one typed method per route the CLI uses. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly key: string,
    private readonly fetchFn: FetchFn = fetch,
  ) {}

  me(): Promise<Me> {
    return this.json('GET', '/v1/me', meSchema);
  }

  listModels(): Promise<Models> {
    return this.json('GET', '/v1/models', modelsSchema);
  }

  async uploadWorkspace(archive: Uint8Array): Promise<string> {
    const body = new Blob([archive as Uint8Array<ArrayBuffer>], { type: 'application/gzip' });
    const signal = AbortSignal.timeout(TRANSFER_TIMEOUT_MS);
    const { id } = await this.json('POST', '/v1/workspaces', idSchema, { body, contentType: 'application/gzip', signal });
    return id;
  }

  /** The workspace as a tar.gz byte stream. */
  async downloadWorkspace(id: string): Promise<ReadableStream<Uint8Array>> {
    const signal = AbortSignal.timeout(TRANSFER_TIMEOUT_MS);
    const response = await this.send('GET', `/v1/workspaces/${encodeURIComponent(id)}/archive`, { signal });
    if (!response.body) throw new ProtocolError('the gateway sent an empty archive');
    return response.body;
  }

  async createSession(input: { workspaceId: string; model: string; title?: string }): Promise<string> {
    const { id } = await this.json('POST', '/v1/sessions', idSchema, jsonBody(input));
    return id;
  }

  getSession(id: string): Promise<Session> {
    return this.json('GET', `/v1/sessions/${encodeURIComponent(id)}`, sessionSchema);
  }

  /** The caller's sessions, newest first, each with a preview of its first message. */
  async listSessions(): Promise<SessionSummary[]> {
    return (await this.json('GET', '/v1/sessions', sessionListSchema)).sessions;
  }

  permissionRules(target: RuleScope): Promise<ScopeRules> {
    const path = target.scope === 'user' ? '/v1/permissions/user' : `/v1/permissions/${target.scope}/${encodeURIComponent(target.id)}`;
    return this.json('GET', path, scopeRulesSchema);
  }

  async postMessage(sessionId: string, content: string, options: TurnOptions = {}): Promise<string> {
    const path = `/v1/sessions/${encodeURIComponent(sessionId)}/messages`;
    const { turnId } = await this.json('POST', path, turnSchema, jsonBody({ content, ...options }));
    return turnId;
  }

  /** Starts a chain of the session's workspace (`.weft/chains/<name>.yaml`) with its inputs. */
  async runChain(sessionId: string, name: string, inputs: Readonly<Record<string, string>>): Promise<string> {
    const path = `/v1/sessions/${encodeURIComponent(sessionId)}/chains/${encodeURIComponent(name)}`;
    const { turnId } = await this.json('POST', path, turnSchema, jsonBody({ inputs }));
    return turnId;
  }

  async listChains(sessionId: string): Promise<ChainListing[]> {
    const { chains } = await this.json('GET', `/v1/sessions/${encodeURIComponent(sessionId)}/chains`, chainsSchema);
    return chains;
  }

  /** The workspace's shared notes, oldest first. */
  async listNotes(workspaceId: string): Promise<Note[]> {
    const { notes } = await this.json('GET', notesPath(workspaceId), notesSchema);
    return notes;
  }

  async addNote(workspaceId: string, text: string): Promise<Note> {
    return this.json('POST', notesPath(workspaceId), noteSchema, jsonBody({ text }));
  }

  async deleteNote(workspaceId: string, noteId: string): Promise<void> {
    await this.send('DELETE', `${notesPath(workspaceId)}/${encodeURIComponent(noteId)}`, {});
  }

  async clearNotes(workspaceId: string): Promise<number> {
    const { deleted } = await this.json('DELETE', notesPath(workspaceId), z.object({ deleted: z.number() }));
    return deleted;
  }

  /** Answers a permission question the agent is waiting on. */
  async answerPermission(sessionId: string, requestId: string, answer: PermissionAnswer): Promise<void> {
    const path = `/v1/sessions/${encodeURIComponent(sessionId)}/permissions/${encodeURIComponent(requestId)}`;
    await this.json('POST', path, z.object({ decision: z.string() }), jsonBody(answer));
  }

  /** Opens the session's SSE stream after `after` (exclusive); the caller owns the body and the signal. */
  openEvents(sessionId: string, after: string | undefined, signal: AbortSignal): Promise<Response> {
    const query = after ? `?after=${encodeURIComponent(after)}` : '';
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (after) headers['last-event-id'] = after;
    return this.send('GET', `/v1/sessions/${encodeURIComponent(sessionId)}/events${query}`, { headers, signal });
  }

  private async json<T>(method: string, path: string, schema: z.ZodType<T>, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, options);
    const body: unknown = await response.json().catch((error: unknown) => {
      throw new ProtocolError(`${method} ${path}: the gateway sent a body that is not JSON`, { cause: error });
    });
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw new ProtocolError(`${method} ${path}: unexpected response from the gateway: ${z.prettifyError(parsed.error)}`);
    }
    return parsed.data;
  }

  private async send(method: string, path: string, options: RequestOptions): Promise<Response> {
    const url = `${this.baseUrl}${path}`;
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}`, ...options.headers };
    if (options.contentType) headers['content-type'] = options.contentType;
    let response: Response;
    try {
      response = await this.fetchFn(url, {
        method,
        headers,
        body: options.body,
        signal: options.signal ?? AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw toTransportError(this.baseUrl, error);
    }
    if (!response.ok) throw await toApiError(response);
    return response;
  }
}

function jsonBody(value: unknown): RequestOptions {
  return { body: JSON.stringify(value), contentType: 'application/json' };
}

/** Maps a non-2xx response to an ApiError, keeping the gateway's code when it sent one. */
export async function toApiError(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined; // not JSON: a proxy's HTML page, say; fall back to the status line
  }
  const parsed = wireErrorBodySchema.safeParse(body);
  if (parsed.success) {
    const { code, message, details } = parsed.data.error;
    return new ApiError(response.status, code, message, details);
  }
  const message = text.trim().slice(0, 200) || response.statusText || 'request failed';
  return new ApiError(response.status, `HTTP_${response.status}`, message);
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
