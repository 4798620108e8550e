import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { loadConfig, toolsConfigSchema } from '@weft/config';
import { InferenceSubjects, generateRequestSchema, type GenerateRequest, type StoredSessionEvent } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { connect, type NatsConnection } from 'nats';
import { gatewaySettingsSchema } from '../../apps/gateway/src/config';
import { createGatewayApp } from '../../apps/gateway/src/create-app';
import { readEvents } from '../../apps/gateway/src/test/sse-client';
import { startToolsWorker } from '../../apps/tools/src/bootstrap';
import type { RunSample } from './stats';

export interface HttpOptions {
  natsUrl: string;
  redisUrl: string;
  /** Generations the gateway runs at once (BullMQ concurrency): the highest benchmark level. */
  concurrency: number;
  maxTokens: number;
}

export interface HttpSession {
  id: string;
  after: string;
}

export interface HttpReply extends RunSample {
  /** The turn went past one generation (the model called a tool, then summarised). */
  extraSteps: boolean;
}

const ADMIN_TOKEN = `bench-admin-${randomBytes(12).toString('hex')}`;
const ended = (e: StoredSessionEvent) => e.type === 'turn.completed' || e.type === 'turn.failed' || e.type === 'turn.cancelled';

/**
 * The whole Weft path: HTTP → gateway (auth, session store, BullMQ run queue, agent loop with its
 * system prompt and tool definitions) → NATS → inference worker → deltas into the session's
 * Redis event log → SSE. The gateway and the tools worker run in this process, on real Redis and
 * NATS; the inference worker is the one the NATS leg already started. One user, one workspace,
 * a fresh session per request, one model step per turn (`maxIterations: 1`).
 */
export class HttpPath {
  /** The benchmark user's API key: the OpenAI-compatible side signs in with it too. */
  key = '';
  private workspaceId = '';

  private constructor(
    private readonly gateway: NestExpressApplication,
    private readonly tools: INestMicroservice,
    private readonly nats: NatsConnection,
    private readonly dir: string,
    readonly base: string,
  ) {}

  static async start(options: HttpOptions): Promise<HttpPath> {
    const dir = await mkdtemp(join(tmpdir(), 'weft-bench-http-'));
    const silent = createLogger('bench', 'silent');
    const tools = await startToolsWorker(
      loadConfig(toolsConfigSchema, { NATS_URL: options.natsUrl, WORKSPACES_DIR: dir, LOG_LEVEL: 'silent' }),
      silent,
    );
    const config = loadConfig(gatewaySettingsSchema, {
      REDIS_URL: options.redisUrl,
      NATS_URL: options.natsUrl,
      WEFT_ADMIN_TOKEN: ADMIN_TOKEN,
      REDIS_KEY_PREFIX: `bench-${randomBytes(4).toString('hex')}:`,
      LOG_LEVEL: 'silent',
      WORKSPACES_DIR: dir,
      AGENT_CONCURRENCY: String(options.concurrency),
      AGENT_MAX_REPLY_TOKENS: String(options.maxTokens),
      INFERENCE_TIMEOUT_MS: '600000',
    });
    const gateway = await createGatewayApp(config, { logger: silent });
    await gateway.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${(gateway.getHttpServer().address() as AddressInfo).port}`;
    const path = new HttpPath(gateway, tools, await connect({ servers: options.natsUrl }), dir, base);
    await path.signUp();
    return path;
  }

  /** A session, created and read before the clock starts: a client does that once, not per message. */
  async newSession(model: string): Promise<HttpSession> {
    const created = await this.api('POST', '/v1/sessions', { workspaceId: this.workspaceId, model, maxIterations: 1 });
    const session = await this.api('GET', `/v1/sessions/${String(created.id)}`);
    return { id: String(created.id), after: String(session.lastEventId) };
  }

  /** Posts a message and follows the event stream to the end of the turn: TTFT is the first `message.delta`. */
  async turn(session: HttpSession, content: string): Promise<HttpReply> {
    const started = performance.now();
    let ttftMs = Number.NaN;
    await this.api('POST', `/v1/sessions/${session.id}/messages`, { content });
    const events = await readEvents(`${this.base}/v1/sessions/${session.id}/events?after=${session.after}`, { authorization: `Bearer ${this.key}` }, (e) => {
      if (e.type === 'message.delta' && Number.isNaN(ttftMs)) ttftMs = performance.now() - started;
      return ended(e);
    });
    const last = events.at(-1);
    if (last?.type !== 'turn.completed') throw new Error(`turn did not complete: ${JSON.stringify(last)}`);
    session.after = last.id;
    return { ttftMs, tokens: last.usage.completionTokens, evaluated: last.usage.evaluatedTokens ?? last.usage.promptTokens, extraSteps: last.iterations > 1 || last.stopReason !== undefined };
  }

  /**
   * The next generation request the gateway sends a worker, copied off NATS (a plain subscriber
   * next to the worker's queue group): what the direct side replays, so both evaluate the same prompt.
   */
  async captureNextRequest(): Promise<{ request: Promise<GenerateRequest> }> {
    const sub = this.nats.subscribe(`${InferenceSubjects.generate}.>`, { max: 1 });
    const any = this.nats.subscribe(InferenceSubjects.generate, { max: 1 });
    await this.nats.flush();
    const first = (s: typeof sub) =>
      (async () => {
        for await (const message of s) {
          const packet = JSON.parse(new TextDecoder().decode(message.data)) as { data?: unknown };
          return generateRequestSchema.parse(packet.data ?? packet);
        }
        throw new Error('subscription closed');
      })();
    const request = Promise.race([first(sub), first(any)]).finally(() => {
      sub.unsubscribe();
      any.unsubscribe();
    });
    return { request };
  }

  async close(): Promise<void> {
    await this.gateway.close();
    await this.tools.close();
    await this.nats.drain();
    await rm(this.dir, { recursive: true, force: true });
  }

  private async signUp(): Promise<void> {
    const user = await this.api('POST', '/v1/admin/users', { name: 'bench' }, ADMIN_TOKEN);
    this.key = String((await this.api('POST', `/v1/admin/users/${String(user.id)}/keys`, undefined, ADMIN_TOKEN)).key);
    this.workspaceId = String((await this.api('POST', '/v1/workspaces', {})).id);
  }

  private async api(method: string, path: string, body?: unknown, token = this.key): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  }
}
