import { createHash } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AppError, ErrorCode, type McpStdioServer } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { SessionContainers, type SessionTarget } from '../sessions/session-containers';
import { LOGGER } from '../tokens';
import { SessionStdioTransport } from './session-stdio-transport';

/** A server nobody used for this long is stopped; the next call starts it again. */
const IDLE_MS = 5 * 60_000;
/** How much of a failed server's stderr its error carries: enough for npm's error block. */
const STDERR_TAIL_CHARS = 800;

interface Running {
  client: Client;
  transport: SessionStdioTransport;
  timer?: NodeJS.Timeout;
}

export type StdioTarget = SessionTarget & { server: McpStdioServer; timeoutMs: number };

/**
 * Added to a server's environment (its own `env` wins): npm retries a registry it cannot reach
 * or trust for a minute and more and says nothing at its default level; at `http` each failed
 * attempt is a line on stderr (`… attempt 1 failed with SELF_SIGNED_CERT_IN_CHAIN`), which the
 * listing shows while the server starts. On stderr only: the protocol on stdout is untouched.
 */
const SERVER_ENV: Readonly<Record<string, string>> = { npm_config_loglevel: 'http' };

interface Start {
  transport: SessionStdioTransport;
  /** Initialized: it answers requests. */
  ready: boolean;
}

/**
 * Stdio MCP servers, each a process in its session's container (never on a host: it gets the
 * session's workspace, network and limits, as a command would), started on first use and kept
 * while used. One per session, server and settings on this worker.
 */
@Injectable()
export class StdioMcpServers implements OnModuleDestroy {
  private readonly running = new Map<string, Promise<Running>>();
  /** The process of each entry of `running`, readable while it is still starting. */
  private readonly starts = new Map<string, Start>();

  constructor(
    private readonly containers: SessionContainers,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Starts the server if it is not running, then lists its tools, all within `timeoutMs`. */
  async listTools(target: StdioTarget): Promise<Tool[]> {
    const deadline = Date.now() + target.timeoutMs;
    return this.use(target, deadline, async (client) => {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : {}, { timeout: left(deadline) });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      return tools;
    });
  }

  async callTool(target: StdioTarget, tool: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const deadline = Date.now() + target.timeoutMs;
    return this.use(target, deadline, async (client) => (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: left(deadline) })) as CallToolResult);
  }

  /** Where the server is on this worker, without waiting or starting it; its stderr so far while it starts. */
  state(target: StdioTarget): { state: 'none' | 'starting' | 'running'; stderrTail: string } {
    const start = this.starts.get(serverKey(target));
    if (!start || start.transport.closed) return { state: 'none', stderrTail: '' };
    return { state: start.ready ? 'running' : 'starting', stderrTail: start.transport.stderrTail().slice(-STDERR_TAIL_CHARS) };
  }

  async onModuleDestroy(): Promise<void> {
    const all = [...this.running.values()];
    this.running.clear();
    await Promise.all(all.map(async (r) => (await r.catch(() => undefined))?.client.close().catch(() => undefined)));
  }

  private async use<T>(target: StdioTarget, deadline: number, work: (client: Client) => Promise<T>): Promise<T> {
    const key = serverKey(target);
    let running = await this.start(key, target, deadline);
    if (running.transport.closed) {
      // It exited since (its container stopped idle, the session was released): start it again.
      this.stop(key);
      running = await this.start(key, target, deadline);
    }
    clearTimeout(running.timer);
    try {
      return await work(running.client);
    } catch (error) {
      if (running.transport.closed) this.stop(key);
      const said = running.transport.stderrTail();
      throw new AppError(
        ErrorCode.McpToolFailed,
        `stdio MCP server "${target.server.name}" failed: ${(error as Error).message}${said ? ` (it said: ${said.slice(-STDERR_TAIL_CHARS)})` : ''}`,
        { server: target.server.name },
      );
    } finally {
      running.timer = setTimeout(() => this.stop(key), IDLE_MS).unref();
    }
  }

  private start(key: string, target: StdioTarget, deadline: number): Promise<Running> {
    let running = this.running.get(key);
    if (!running) {
      running = this.connect(key, target, deadline);
      this.running.set(key, running);
      running.catch(() => this.running.delete(key));
    }
    return running;
  }

  /**
   * Starts the process (its container too, when the session has none yet) and initializes it,
   * all before `deadline`: the gateway waits only that long (plus a margin) for the answer, so
   * the answer must come first, with the server's own last words. A process that exits fails
   * the start at once, not at the deadline.
   */
  private async connect(key: string, target: StdioTarget, deadline: number): Promise<Running> {
    const { server } = target;
    const transport = new SessionStdioTransport((onStdout) =>
      this.containers.spawn(target, [server.command, ...server.args], { ...SERVER_ENV, ...server.env }, onStdout),
    );
    const start: Start = { transport, ready: false };
    this.starts.set(key, start);
    const forget = () => {
      if (this.starts.get(key) === start) this.starts.delete(key);
    };
    const client = new Client({ name: 'weft', version: '0.1.0' });
    client.onclose = () => {
      forget();
      if (this.running.get(key) === current) this.running.delete(key);
    };
    const current: Promise<Running> = (async () => {
      try {
        await beforeDeadline(client.connect(transport, { timeout: left(deadline) }), deadline, server.name);
      } catch (error) {
        forget();
        await transport.close();
        const said = transport.stderrTail();
        // "Connection closed" says less than how the process ended.
        const why = transport.ending ?? (error as Error).message;
        throw new AppError(
          ErrorCode.McpToolFailed,
          `stdio MCP server "${server.name}" did not start: ${why}${said ? ` (it said: ${said.slice(-STDERR_TAIL_CHARS)})` : ''}`,
          { server: server.name },
        );
      }
      start.ready = true;
      this.logger.info({ server: server.name, sessionId: target.session.sessionId }, 'stdio MCP server started in the session container');
      return { client, transport };
    })();
    return current;
  }

  private stop(key: string): void {
    const running = this.running.get(key);
    if (!running) return;
    this.running.delete(key);
    this.starts.delete(key);
    void running?.then((r) => r.client.close()).catch(() => undefined);
  }
}

/** Everything the process was started with: other settings, another process. */
function serverKey(target: StdioTarget): string {
  const { session, workspaceId, writable, network, image, server } = target;
  return createHash('sha256').update(JSON.stringify([session.sessionId, session.ownerId, workspaceId, writable, network, image ?? '', server])).digest('hex');
}

/** Milliseconds until `deadline`, at least 1 (a timeout of 0 would mean none). */
function left(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}

/** `work`, or a rejection naming the server once `deadline` passes (container creation included). */
async function beforeDeadline<T>(work: Promise<T>, deadline: number, server: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const seconds = Math.round((deadline - Date.now()) / 1000);
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer to initialize within ${seconds} s (${server} is still starting or installing)`)), left(deadline));
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
