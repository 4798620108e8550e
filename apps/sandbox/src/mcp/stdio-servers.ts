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

interface Running {
  client: Client;
  transport: SessionStdioTransport;
  timer?: NodeJS.Timeout;
}

export type StdioTarget = SessionTarget & { server: McpStdioServer; timeoutMs: number };

/**
 * Stdio MCP servers, each a process in its session's container (never on a host: it gets the
 * session's workspace, network and limits, as a command would), started on first use and kept
 * while used. One per session, server and settings on this worker.
 */
@Injectable()
export class StdioMcpServers implements OnModuleDestroy {
  private readonly running = new Map<string, Promise<Running>>();

  constructor(
    private readonly containers: SessionContainers,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async listTools(target: StdioTarget): Promise<Tool[]> {
    return this.use(target, async (client) => {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : {}, { timeout: target.timeoutMs });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      return tools;
    });
  }

  async callTool(target: StdioTarget, tool: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return this.use(target, async (client) => (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: target.timeoutMs })) as CallToolResult);
  }

  async onModuleDestroy(): Promise<void> {
    const all = [...this.running.values()];
    this.running.clear();
    await Promise.all(all.map(async (r) => (await r.catch(() => undefined))?.client.close().catch(() => undefined)));
  }

  private async use<T>(target: StdioTarget, work: (client: Client) => Promise<T>): Promise<T> {
    const key = serverKey(target);
    let running = await this.start(key, target);
    if (running.transport.closed) {
      // It exited since (its container stopped idle, the session was released): start it again.
      this.stop(key);
      running = await this.start(key, target);
    }
    clearTimeout(running.timer);
    try {
      return await work(running.client);
    } catch (error) {
      if (running.transport.closed) this.stop(key);
      const said = running.transport.stderrTail();
      throw new AppError(
        ErrorCode.McpToolFailed,
        `stdio MCP server "${target.server.name}" failed: ${(error as Error).message}${said ? ` (it said: ${said.slice(-500)})` : ''}`,
        { server: target.server.name },
      );
    } finally {
      running.timer = setTimeout(() => this.stop(key), IDLE_MS).unref();
    }
  }

  private start(key: string, target: StdioTarget): Promise<Running> {
    let running = this.running.get(key);
    if (!running) {
      running = this.connect(key, target);
      this.running.set(key, running);
      running.catch(() => this.running.delete(key));
    }
    return running;
  }

  private async connect(key: string, target: StdioTarget): Promise<Running> {
    const { server } = target;
    const transport = new SessionStdioTransport((onStdout) =>
      this.containers.spawn(target, [server.command, ...server.args], server.env, onStdout),
    );
    const client = new Client({ name: 'weft', version: '0.1.0' });
    client.onclose = () => {
      if (this.running.get(key) === current) this.running.delete(key);
    };
    const current: Promise<Running> = (async () => {
      try {
        await client.connect(transport, { timeout: target.timeoutMs });
      } catch (error) {
        await transport.close();
        const said = transport.stderrTail();
        throw new AppError(
          ErrorCode.McpToolFailed,
          `stdio MCP server "${server.name}" did not start: ${(error as Error).message}${said ? ` (it said: ${said.slice(-500)})` : ''}`,
          { server: server.name },
        );
      }
      this.logger.info({ server: server.name, sessionId: target.session.sessionId }, 'stdio MCP server started in the session container');
      return { client, transport };
    })();
    return current;
  }

  private stop(key: string): void {
    const running = this.running.get(key);
    if (!running) return;
    this.running.delete(key);
    void running?.then((r) => r.client.close()).catch(() => undefined);
  }
}

/** Everything the process was started with: other settings, another process. */
function serverKey(target: StdioTarget): string {
  const { session, workspaceId, writable, network, image, server } = target;
  return createHash('sha256').update(JSON.stringify([session.sessionId, session.ownerId, workspaceId, writable, network, image ?? '', server])).digest('hex');
}
