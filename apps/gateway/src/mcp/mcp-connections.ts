import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@weft/logging';
import type { RemoteServerConfig } from './mcp-config';

export interface McpTimeouts {
  connectMs: number;
  callMs: number;
  /** How long a server's tool list is reused before it is asked again. */
  toolsTtlMs: number;
}

interface Connection {
  client: Client;
  tools?: { list: Tool[]; at: number };
}

const CLIENT_INFO = { name: 'weft', version: '0.1.0' };

/**
 * Connections to remote MCP servers (streamable HTTP, else SSE), one per URL and headers and
 * shared by the sessions that use that server; a broken one is dropped and made again on next use.
 */
export class McpConnections {
  private readonly connections = new Map<string, Promise<Connection>>();

  constructor(
    private readonly timeouts: McpTimeouts,
    private readonly logger: Logger,
  ) {}

  async listTools(server: RemoteServerConfig): Promise<Tool[]> {
    const connection = await this.connect(server);
    if (connection.tools && Date.now() - connection.tools.at < this.timeouts.toolsTtlMs) return connection.tools.list;
    const list: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.guard(server, () => connection.client.listTools(cursor ? { cursor } : {}, { timeout: this.timeouts.connectMs }));
      list.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    connection.tools = { list, at: Date.now() };
    return list;
  }

  async callTool(server: RemoteServerConfig, name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    const connection = await this.connect(server);
    const result = await this.guard(server, () =>
      connection.client.callTool({ name, arguments: args }, undefined, {
        timeout: this.timeouts.callMs,
        ...(signal ? { signal } : {}),
      }),
    );
    return result as CallToolResult;
  }

  async close(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map(async (c) => (await c.catch(() => undefined))?.client.close().catch(() => undefined)));
  }

  private connect(server: RemoteServerConfig): Promise<Connection> {
    const key = connectionKey(server);
    let connection = this.connections.get(key);
    if (!connection) {
      connection = this.open(server);
      this.connections.set(key, connection);
      connection.catch(() => this.connections.delete(key));
    }
    return connection;
  }

  private async open(server: RemoteServerConfig): Promise<Connection> {
    const url = new URL(server.url);
    const requestInit = server.headers ? { headers: server.headers } : undefined;
    const attempt = async (transport: Transport) => {
      const client = new Client(CLIENT_INFO);
      await client.connect(transport, { timeout: this.timeouts.connectMs });
      client.onclose = () => this.drop(server, client);
      return { client };
    };
    if (server.type === 'sse') return attempt(new SSEClientTransport(url, { requestInit }));
    try {
      return await attempt(new StreamableHTTPClientTransport(url, { requestInit }));
    } catch (error) {
      if (server.type !== undefined) throw error;
      // Undeclared type: an older server may speak only the SSE transport (the SDK's advice).
      this.logger.debug({ err: error, url: server.url }, 'MCP server refused streamable HTTP; trying SSE');
      return attempt(new SSEClientTransport(url, { requestInit }));
    }
  }

  /** A failed request may mean a dead session on the server's side: the next use connects afresh. */
  private async guard<T>(server: RemoteServerConfig, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      const key = connectionKey(server);
      const connection = this.connections.get(key);
      this.connections.delete(key);
      void connection?.then((c) => c.client.close()).catch(() => undefined);
      throw error;
    }
  }

  private drop(server: RemoteServerConfig, client: Client): void {
    const key = connectionKey(server);
    const current = this.connections.get(key);
    void current?.then((c) => c.client === client && this.connections.get(key) === current && this.connections.delete(key)).catch(() => undefined);
  }
}

/** The URL and headers identify a connection: two users' tokens never share one. */
function connectionKey(server: RemoteServerConfig): string {
  return createHash('sha256').update(JSON.stringify([server.type ?? '', server.url, server.headers ?? {}])).digest('hex');
}
