import type { z } from 'zod';
import { ApiError, NETWORK_ERROR, UNEXPECTED_RESPONSE } from './api-error';
import {
  type FileEntry,
  type Folder,
  type Me,
  type ModelInfo,
  type PermissionDecision,
  type Session,
  type SessionSummary,
  type Workspace,
  createdSchema,
  folderSchema,
  meSchema,
  modelsSchema,
  permissionAnswerSchema,
  sessionSchema,
  sessionsSchema,
  turnSchema,
  wireErrorBodySchema,
  workspacesSchema,
} from './schemas';

/** A plain call's deadline; uploads and downloads get longer, the event stream none. */
const REQUEST_TIMEOUT_MS = 30_000;
const TRANSFER_TIMEOUT_MS = 300_000;

interface RequestOptions {
  body?: BodyInit;
  contentType?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number | null;
}

const enc = encodeURIComponent;
const filePath = (path: string) => path.split('/').filter(Boolean).map(enc).join('/');

/** The gateway's public API (docs/api.md) on this page's own origin, with the user's key. */
export class ApiClient {
  constructor(private readonly key: string) {}

  me(signal?: AbortSignal): Promise<Me> {
    return this.json(meSchema, 'GET', '/v1/me', { signal });
  }

  async models(): Promise<ModelInfo[]> {
    return (await this.json(modelsSchema, 'GET', '/v1/models')).models;
  }

  async workspaces(): Promise<Workspace[]> {
    return (await this.json(workspacesSchema, 'GET', '/v1/workspaces')).workspaces;
  }

  /** `archive`: a tar.gz of the folder, packed in the page. */
  async uploadWorkspace(archive: Blob, name: string): Promise<string> {
    const options = { body: archive, contentType: 'application/gzip', timeoutMs: TRANSFER_TIMEOUT_MS };
    return (await this.json(createdSchema, 'POST', `/v1/workspaces?name=${enc(name)}`, options)).id;
  }

  async sessions(): Promise<SessionSummary[]> {
    return (await this.json(sessionsSchema, 'GET', '/v1/sessions')).sessions;
  }

  session(id: string): Promise<Session> {
    return this.json(sessionSchema, 'GET', `/v1/sessions/${enc(id)}`);
  }

  async createSession(input: { workspaceId: string; model: string; title?: string }): Promise<string> {
    return (await this.json(createdSchema, 'POST', '/v1/sessions', jsonBody(input))).id;
  }

  /** Sets the session's title; null clears it (the list then shows the first message). */
  async renameSession(id: string, title: string | null): Promise<void> {
    await this.send('PATCH', `/v1/sessions/${enc(id)}`, jsonBody({ title }));
  }

  /** The conversation as JSONL (every stored event) or Markdown. */
  async exportSession(id: string, format: 'jsonl' | 'markdown'): Promise<Blob> {
    return (await this.send('GET', `/v1/sessions/${enc(id)}/export?format=${format}`, { timeoutMs: TRANSFER_TIMEOUT_MS })).blob();
  }

  /** 409 while a turn runs in it. */
  async deleteSession(id: string): Promise<void> {
    await this.send('DELETE', `/v1/sessions/${enc(id)}`);
  }

  async postMessage(sessionId: string, content: string, mode: 'chat' | 'plan'): Promise<string> {
    const body = mode === 'plan' ? { content, mode } : { content };
    return (await this.json(turnSchema, 'POST', `/v1/sessions/${enc(sessionId)}/messages`, jsonBody(body))).turnId;
  }

  async cancelTurn(sessionId: string, turnId: string): Promise<void> {
    await this.send('POST', `/v1/sessions/${enc(sessionId)}/turns/${enc(turnId)}/cancel`);
  }

  answerPermission(sessionId: string, requestId: string, decision: PermissionDecision, reason?: string) {
    const body = reason ? { decision, reason } : { decision };
    return this.json(permissionAnswerSchema, 'POST', `/v1/sessions/${enc(sessionId)}/permissions/${enc(requestId)}`, jsonBody(body));
  }

  /** The session's event log from after `lastEventId` (all of it without), then live; never ends by itself. */
  events(sessionId: string, lastEventId: string | null, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (lastEventId) headers['last-event-id'] = lastEventId;
    return this.send('GET', `/v1/sessions/${enc(sessionId)}/events`, { headers, signal, timeoutMs: null });
  }

  async folder(workspaceId: string, path: string): Promise<FileEntry[]> {
    const suffix = path === '' ? '' : `/${filePath(path)}`;
    const folder: Folder = await this.json(folderSchema, 'GET', `/v1/workspaces/${enc(workspaceId)}/files${suffix}`);
    return folder.entries;
  }

  async file(workspaceId: string, path: string): Promise<Blob> {
    return (await this.send('GET', `/v1/workspaces/${enc(workspaceId)}/files/${filePath(path)}`)).blob();
  }

  /** Everything changed since the workspace was created, as a git diff ('' when nothing did). */
  async patch(workspaceId: string): Promise<string> {
    return (await this.send('GET', `/v1/workspaces/${enc(workspaceId)}/patch`, { timeoutMs: TRANSFER_TIMEOUT_MS })).text();
  }

  async archive(workspaceId: string): Promise<Blob> {
    return (await this.send('GET', `/v1/workspaces/${enc(workspaceId)}/archive`, { timeoutMs: TRANSFER_TIMEOUT_MS })).blob();
  }

  private async json<S extends z.ZodType>(schema: S, method: string, path: string, options: RequestOptions = {}): Promise<z.infer<S>> {
    const response = await this.send(method, path, options);
    const body: unknown = await response.json().catch(() => undefined);
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw new ApiError(response.status, UNEXPECTED_RESPONSE, `The gateway's answer to ${method} ${path} was not what this page expects.`);
    }
    return parsed.data;
  }

  private async send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}`, ...options.headers };
    if (options.contentType) headers['content-type'] = options.contentType;
    const timeoutMs = options.timeoutMs === undefined ? REQUEST_TIMEOUT_MS : options.timeoutMs;
    const signals = [options.signal, timeoutMs === null ? undefined : AbortSignal.timeout(timeoutMs)].filter((s): s is AbortSignal => !!s);
    let response: Response;
    try {
      response = await fetch(path, { method, headers, body: options.body, signal: AbortSignal.any(signals) });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const why = error instanceof DOMException && error.name === 'TimeoutError' ? 'it did not answer in time' : 'it could not be reached';
      throw new ApiError(0, NETWORK_ERROR, `The gateway did not answer ${method} ${path}: ${why}.`);
    }
    if (!response.ok) throw await errorOf(response);
    return response;
  }
}

function jsonBody(value: unknown): RequestOptions {
  return { body: JSON.stringify(value), contentType: 'application/json' };
}

async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined; // a proxy's page, or nothing: described by the status below
  }
  const wire = wireErrorBodySchema.safeParse(body);
  if (wire.success) return new ApiError(response.status, wire.data.error.code, wire.data.error.message, wire.data.error.details);
  return new ApiError(response.status, UNEXPECTED_RESPONSE, `The gateway answered ${response.status} ${response.statusText}`.trim() + '.');
}
