import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SessionEvent } from '@weft/contracts';

/**
 * A stand-in for the gateway in the CLI's tests: the routes of docs/api.md the CLI uses, an
 * in-memory event log, and scripted turns. It is not the component under test.
 */
export type Scripted = SessionEvent extends infer E ? (E extends SessionEvent ? Omit<E, 'turnId'> : never) : never;

export interface StubGatewayOptions {
  readonly key: string;
  /** The events each posted message produces, in order; `turnId` is filled in. */
  readonly turns: readonly (readonly Scripted[])[];
  /** Cut the first event stream after this many events. */
  readonly dropAfter?: number;
  /** Replay the whole log on every connection, as a careless server would. */
  readonly ignoreResume?: boolean;
  /** Sessions that exist besides `ses_1`, oldest first. */
  readonly sessions?: readonly StubSession[];
  /** What `GET /v1/workspaces/:id/patch` returns (default: nothing changed). */
  readonly patch?: string;
  /** What `GET /v1/permissions/user` and `/session/:id` return, by scope key (`user`, `session:ses_1`). */
  readonly rules?: Readonly<Record<string, { allow?: string[]; ask?: string[]; deny?: string[] }>>;
}

export interface StubSession {
  readonly id: string;
  readonly workspaceId: string;
  readonly model: string;
  readonly title?: string | null;
  readonly preview?: string | null;
  readonly messages?: Array<{ role: 'user' | 'assistant'; content: string }>;
}

export interface StreamRequest {
  readonly after: string | null;
  readonly lastEventId: string | undefined;
}

export interface StubGateway {
  readonly url: string;
  readonly streams: StreamRequest[];
  readonly uploads: Buffer[];
  /** Permission answers the CLI posted, in order. */
  readonly answers: Array<{ requestId: string; decision: string; reason?: string }>;
  /** Messages the CLI posted, with the session each went to and how it asked it to run. */
  readonly posted: Array<{ sessionId: string; content: string; mode?: string; to?: string }>;
  /** Chains the CLI started, with their inputs. */
  readonly chainRuns: Array<{ sessionId: string; chain: string; inputs: Record<string, string> }>;
  /** Shared notes by workspace, as the notes routes keep them. */
  readonly notes: Map<string, Array<{ id: string; text: string; source: string; author: string; createdAt: string }>>;
  /** Sessions the CLI created. */
  readonly created: Array<{ id: string; workspaceId: string; model: string; sandboxImage?: string }>;
  /** Turns the CLI asked to cancel; one whose script had not ended then ends `turn.cancelled`. */
  readonly cancels: string[];
  close(): Promise<void>;
}

interface Logged {
  readonly id: string;
  readonly data: SessionEvent & { id: string; at: string };
}

export async function startStubGateway(options: StubGatewayOptions): Promise<StubGateway> {
  const log: Logged[] = [];
  const listeners = new Set<(entry: Logged) => void>();
  const streams: StreamRequest[] = [];
  const uploads: Buffer[] = [];
  const answers: StubGateway['answers'] = [];
  const posted: StubGateway['posted'] = [];
  const created: StubGateway['created'] = [];
  const notes: StubGateway['notes'] = new Map();
  const chainRuns: StubGateway['chainRuns'] = [];
  const cancels: string[] = [];
  const putRules = new Map<string, { allow?: string[]; ask?: string[]; deny?: string[] }>();
  const ended = new Set<string>();
  const sessions = new Map<string, StubSession & { createdAt: string }>();
  for (const [index, session] of [{ id: 'ses_1', workspaceId: 'ws_1', model: 'tiny' }, ...(options.sessions ?? [])].entries()) {
    sessions.set(session.id, { ...session, createdAt: new Date(index * 60_000).toISOString() });
  }
  let turnCount = 0;
  let sequence = 0;

  const append = (event: SessionEvent): void => {
    sequence += 1;
    const id = `1700000000000-${sequence}`;
    const entry = { id, data: { ...event, id, at: new Date(0).toISOString() } };
    log.push(entry);
    if (event.type === 'turn.completed' || event.type === 'turn.failed' || event.type === 'turn.cancelled') ended.add(event.turnId);
    for (const listener of listeners) listener(entry);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://stub');
    const body = await readBody(req);
    if (req.headers.authorization !== `Bearer ${options.key}`) {
      return json(res, 401, { error: { code: 'AUTH.UNAUTHORIZED', message: 'unknown API key' } });
    }
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /v1/me') return json(res, 200, { id: 'usr_1', name: 'ada' });
    if (route === 'GET /v1/models') return json(res, 200, { models: [{ id: 'tiny', provider: 'scripted', contextSize: 4096 }] });
    if (route === 'GET /v1/settings') return json(res, 200, { gitImportHosts: [], workspaceUploadMaxBytes: 8 * 1024 * 1024 });
    if (route === 'POST /v1/workspaces') {
      uploads.push(body);
      return json(res, 201, { id: `ws_${uploads.length}` });
    }
    const archive = /^GET \/v1\/workspaces\/ws_(\d+)\/archive$/.exec(route);
    if (archive) {
      const stored = uploads[Number(archive[1]) - 1];
      if (!stored) return json(res, 404, { error: { code: 'TOOLS.WORKSPACE_NOT_FOUND', message: 'no such workspace' } });
      res.writeHead(200, { 'content-type': 'application/gzip' }).end(stored);
      return;
    }
    if (route === 'POST /v1/sessions') {
      const { model, workspaceId, sandboxImage } = JSON.parse(body.toString()) as { model: string; workspaceId: string; sandboxImage?: string };
      if (model !== 'tiny') return json(res, 400, { error: { code: 'INFERENCE.UNKNOWN_MODEL', message: `unknown model ${model}; known: tiny` } });
      // Without extra sessions, the first one created is the `ses_1` the simpler tests expect.
      const id = created.length === 0 && !options.sessions ? 'ses_1' : `ses_${sessions.size + 1}`;
      created.push({ id, workspaceId, model, ...(sandboxImage ? { sandboxImage } : {}) });
      sessions.set(id, { id, workspaceId, model, createdAt: new Date(Date.now()).toISOString() });
      return json(res, 201, { id });
    }
    if (route === 'GET /v1/sessions') {
      const newest = [...sessions.values()].reverse();
      return json(res, 200, {
        sessions: newest.map(({ id, workspaceId, model, title, preview, createdAt }) => ({
          id, workspaceId, model, title: title ?? null, createdAt, activeTurnId: null, maxIterations: null, preview: preview ?? null,
        })),
      });
    }
    const sessionRoute = /^(GET|POST) \/v1\/sessions\/([\w-]+)(\/.*)?$/.exec(route);
    const session = sessionRoute?.[2] ? sessions.get(sessionRoute[2]) : undefined;
    if (sessionRoute && !session) return json(res, 404, { error: { code: 'COMMON.NOT_FOUND', message: `Session ${sessionRoute[2]} not found` } });
    const sessionPath = session ? `${sessionRoute?.[1]} ${sessionRoute?.[3] ?? ''}` : undefined;
    if (session && sessionPath === 'GET ') {
      const lastEventId = log.at(-1)?.id ?? null;
      const { id, workspaceId, model, title, createdAt, messages } = session;
      return json(res, 200, { id, workspaceId, model, title: title ?? null, createdAt, activeTurnId: null, lastEventId, messages: messages ?? [] });
    }
    const notesRoute = /^(GET|POST|DELETE) \/v1\/workspaces\/([\w-]+)\/notes(?:\/([\w-]+))?$/.exec(route);
    if (notesRoute?.[2]) {
      const list = notes.get(notesRoute[2]) ?? [];
      notes.set(notesRoute[2], list);
      if (notesRoute[1] === 'GET') return json(res, 200, { notes: list });
      if (notesRoute[1] === 'POST') {
        const note = { id: `note_${list.length + 1}`, text: (JSON.parse(body.toString()) as { text: string }).text, source: 'user', author: 'usr_1', createdAt: new Date(0).toISOString() };
        list.push(note);
        return json(res, 201, note);
      }
      const at = list.findIndex((n) => n.id === notesRoute[3]);
      if (notesRoute[3] && at < 0) return json(res, 404, { error: { code: 'COMMON.NOT_FOUND', message: `Note ${notesRoute[3]} not found` } });
      if (notesRoute[3]) return void (list.splice(at, 1), res.writeHead(204).end());
      return json(res, 200, { deleted: list.splice(0).length });
    }
    const rules = /^(GET|PUT) \/v1\/permissions\/(user|session\/[\w-]+)$/.exec(route);
    if (rules?.[2]) {
      const key = rules[2].replace('/', ':');
      if (rules[1] === 'PUT') putRules.set(key, JSON.parse(body.toString()) as { allow?: string[]; ask?: string[]; deny?: string[] });
      const stored = putRules.get(key) ?? options.rules?.[key] ?? {};
      return json(res, 200, { scope: key.split(':')[0], rules: { allow: stored.allow ?? [], ask: stored.ask ?? [], deny: stored.deny ?? [] } });
    }
    if (session && sessionPath === 'GET /chains') {
      return json(res, 200, { chains: [{ name: 'fix-bug', description: 'find and fix', inputs: { issue: {} }, steps: 2 }, { name: 'broken', error: 'not valid YAML' }] });
    }
    const chainRun = session ? /^POST \/chains\/([\w-]+)$/.exec(sessionPath ?? '') : null;
    if (session && (sessionPath === 'POST /messages' || chainRun)) {
      const script = options.turns[turnCount];
      turnCount += 1;
      const turnId = `turn_${turnCount}`;
      const parsed = JSON.parse(body.toString()) as { content: string; mode?: string; to?: string; inputs?: Record<string, string> };
      const { mode, to } = parsed;
      const content = chainRun?.[1] ? `Run chain "${chainRun[1]}"` : parsed.content;
      if (chainRun?.[1]) chainRuns.push({ sessionId: session.id, chain: chainRun[1], inputs: parsed.inputs ?? {} });
      else posted.push({ sessionId: session.id, content, ...(mode ? { mode } : {}), ...(to ? { to } : {}) });
      json(res, 202, { turnId });
      // Played after the reply, so the events arrive live on the client's stream.
      setImmediate(() => {
        append({ type: 'message.created', turnId, role: 'user', content });
        for (const event of script ?? []) append({ ...event, turnId } as SessionEvent);
      });
      return;
    }
    if (session && sessionPath === 'GET /events') return stream(req, res, url);
    const cancel = session ? /^POST \/turns\/([\w-]+)\/cancel$/.exec(sessionPath ?? '') : null;
    if (cancel?.[1]) {
      const turnId = cancel[1];
      cancels.push(turnId);
      if (ended.has(turnId)) return json(res, 409, { error: { code: 'COMMON.CONFLICT', message: `Turn ${turnId} is not running` } });
      json(res, 202, { turnId, status: 'cancelling' });
      setImmediate(() => append({ type: 'turn.cancelled', turnId, userId: 'usr_1' }));
      return;
    }
    if (/^GET \/v1\/workspaces\/[\w-]+\/patch$/.test(route)) {
      res.writeHead(200, { 'content-type': 'text/x-diff' }).end(options.patch ?? '');
      return;
    }
    const permission = /^POST \/v1\/sessions\/[\w-]+\/permissions\/([\w-]+)$/.exec(route);
    if (permission?.[1]) {
      const answer = JSON.parse(body.toString()) as { decision: string; reason?: string };
      answers.push({ requestId: permission[1], ...answer });
      return json(res, 200, { requestId: permission[1], decision: answer.decision, scope: 'session', storedRules: [] });
    }
    return json(res, 404, { error: { code: 'COMMON.NOT_FOUND', message: `no route ${route}` } });
  };

  const stream = (req: IncomingMessage, res: ServerResponse, url: URL): void => {
    const after = url.searchParams.get('after');
    const lastEventId = req.headers['last-event-id'] as string | undefined;
    streams.push({ after, lastEventId });
    const dropAt = streams.length === 1 ? options.dropAfter : undefined;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(': connected\n\n');
    let sent = 0;
    let dropped = false;
    const send = (entry: Logged): void => {
      if (dropped || res.destroyed) return;
      res.write(`id: ${entry.id}\nevent: ${entry.data.type}\ndata: ${JSON.stringify(entry.data)}\n\n`);
      sent += 1;
      if (dropAt !== undefined && sent >= dropAt) {
        dropped = true;
        // Ends the stream mid-turn, as a restarting gateway does. Not a bare socket cut: undici
        // errors the body stream on one, and an errored stream drops the chunks not yet read, so
        // which event the client last saw would depend on timing.
        res.end();
      }
    };
    const start = options.ignoreResume ? undefined : (after ?? lastEventId);
    const startIndex = start ? log.findIndex((entry) => entry.id === start) + 1 : 0;
    for (const entry of log.slice(startIndex)) send(entry);
    listeners.add(send);
    res.on('close', () => listeners.delete(send));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => json(res, 500, { error: { code: 'COMMON.INTERNAL', message: String(error) } }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    streams,
    uploads,
    answers,
    posted,
    created,
    notes,
    chainRuns,
    cancels,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
