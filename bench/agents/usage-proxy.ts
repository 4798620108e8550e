import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createParser } from 'eventsource-parser';

/** One generation request as its client saw it: the usage the reply carried. */
export interface RecordedRequest {
  label: string;
  path: string;
  status: number;
  promptTokens: number;
  cachedTokens: number;
  ms: number;
}

export interface UsageProxyOptions {
  /** The gateway, `http://host:port`. */
  target: string;
  /** Caps each reply (`max_tokens` / `max_output_tokens`): the benchmark's model writes noise. */
  replyTokens: number;
  /** When given, each generation request goes out under the next key: a new user, so no cache of any earlier request is reused. */
  rotateKeys?: () => Promise<string>;
}

/**
 * Sits between an agent CLI and the gateway and records, per generation request, the usage
 * the client receives (Anthropic's `message_start`/`message_delta`, the Responses API's
 * `response.completed`, or a whole JSON reply). Everything else passes through untouched.
 */
export class UsageProxy {
  readonly recorded: RecordedRequest[] = [];
  label = '';
  private constructor(
    private readonly server: Server,
    private readonly options: UsageProxyOptions,
  ) {}

  static async start(options: UsageProxyOptions): Promise<UsageProxy> {
    const server = createServer();
    const proxy = new UsageProxy(server, options);
    server.on('request', (req, res) => {
      proxy.forward(req, res).catch((error: unknown) => {
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const generation = req.method === 'POST' && (path.endsWith('/messages') || path.endsWith('/responses'));
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !['host', 'content-length', 'connection'].includes(name)) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    let body: Buffer | undefined = chunks.length ? Buffer.concat(chunks) : undefined;
    if (generation && body) {
      const json = JSON.parse(body.toString()) as Record<string, unknown>;
      json[path.endsWith('/messages') ? 'max_tokens' : 'max_output_tokens'] = this.options.replyTokens;
      body = Buffer.from(JSON.stringify(json));
      if (this.options.rotateKeys) {
        const key = await this.options.rotateKeys();
        if (headers.has('x-api-key')) headers.set('x-api-key', key);
        if (headers.has('authorization')) headers.set('authorization', `Bearer ${key}`);
      }
    }
    const started = performance.now();
    const reply = await fetch(this.options.target + (req.url ?? '/'), { method: req.method, headers, body });
    const out: Record<string, string> = {};
    reply.headers.forEach((value, name) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name)) out[name] = value;
    });
    res.writeHead(reply.status, out);
    const usage = { promptTokens: 0, cachedTokens: 0 };
    const streamed = (reply.headers.get('content-type') ?? '').startsWith('text/event-stream');
    const parser = createParser({ onEvent: (event) => readUsage(event.data, usage) });
    const text: string[] = [];
    const decoder = new TextDecoder();
    if (reply.body) {
      for await (const chunk of reply.body) {
        res.write(chunk);
        const piece = decoder.decode(chunk as Uint8Array, { stream: true });
        if (streamed) parser.feed(piece);
        else text.push(piece);
      }
    }
    res.end();
    if (!generation) return;
    if (!streamed && text.length) readUsage(text.join(''), usage);
    this.recorded.push({ label: this.label, path, status: reply.status, ...usage, ms: performance.now() - started });
  }
}

/** Fills `usage` from one event (or a whole reply) of either API; other events change nothing. */
function readUsage(data: string, usage: { promptTokens: number; cachedTokens: number }): void {
  let value: {
    type?: string;
    object?: string;
    usage?: AnthropicUsage & ResponsesUsage;
    message?: { usage?: AnthropicUsage };
    response?: { usage?: ResponsesUsage };
  };
  try {
    value = JSON.parse(data) as typeof value;
  } catch {
    return; // `[DONE]` and the like
  }
  const anthropic = value.type === 'message_delta' || value.type === 'message' ? value.usage : value.type === 'message_start' ? value.message?.usage : undefined;
  if (anthropic && anthropic.input_tokens !== undefined) {
    const cached = anthropic.cache_read_input_tokens ?? 0;
    usage.promptTokens = Math.max(usage.promptTokens, anthropic.input_tokens + cached);
    usage.cachedTokens = Math.max(usage.cachedTokens, cached);
  }
  // A capped reply closes with `response.incomplete`, a failed one with `response.failed`: both carry the usage.
  const closing = value.type === 'response.completed' || value.type === 'response.incomplete' || value.type === 'response.failed';
  const responses = closing ? value.response?.usage : value.object === 'response' ? value.usage : undefined;
  if (responses && responses.input_tokens !== undefined) {
    usage.promptTokens = responses.input_tokens;
    usage.cachedTokens = responses.input_tokens_details?.cached_tokens ?? 0;
  }
}

interface AnthropicUsage {
  input_tokens?: number;
  cache_read_input_tokens?: number;
}

interface ResponsesUsage {
  input_tokens?: number;
  input_tokens_details?: { cached_tokens?: number };
}
