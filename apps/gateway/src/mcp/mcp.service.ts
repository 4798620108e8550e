import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { AppError, ErrorCode, Routes } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { RpcClient } from '@weft/messaging';
import type { AgentTool } from '../agent/tools/define-tool';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { LOGGER } from '../infra/tokens';
import { type DeclaredServer, McpConfigError, expandFromEnvironment, hostAllowed, parseMcpServers } from './mcp-config';
import { McpConnections } from './mcp-connections';
import { describe, mcpToolName, toAgentTools } from './mcp-tools';

/** A workspace's own MCP servers, in the format other agents read. */
export const WORKSPACE_MCP_PATH = '.weft/mcp.json';
/** A server that just failed is not asked again for this long: every turn would wait for its timeout. */
const FAILURE_MEMORY_MS = 30_000;

export type McpServerState = 'ready' | 'failed' | 'refused' | 'unsupported' | 'invalid';

export interface McpServerStatus {
  name: string;
  scope: 'server' | 'workspace';
  transport: 'remote' | 'stdio' | 'unknown';
  url?: string;
  state: McpServerState;
  problem?: string;
  tools: Array<{ name: string; tool: string; description?: string }>;
}

type McpSettings = Pick<GatewaySettings, 'MCP_SERVERS' | 'MCP_ALLOWED_HOSTS' | 'MCP_CONNECT_TIMEOUT_MS' | 'MCP_CALL_TIMEOUT_MS'>;

/**
 * The MCP servers a session may use: the admin's (`MCP_SERVERS`), then the workspace's
 * `.weft/mcp.json` within what the admin allows. Their tools join the agent's as
 * `mcp__<server>__<tool>` and go through the permission gate like every tool (ask by default).
 * A server that fails is reported with its name and never fails a turn.
 */
@Injectable()
export class McpService implements OnModuleDestroy {
  private readonly serverScope: DeclaredServer[];
  private readonly connections: McpConnections;
  private readonly failures = new Map<string, { problem: string; at: number }>();

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: McpSettings,
    private readonly rpc: RpcClient,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    try {
      this.serverScope = parseMcpServers(config.MCP_SERVERS, 'server', expandFromEnvironment(process.env));
    } catch (error) {
      if (error instanceof McpConfigError) throw new Error(`MCP_SERVERS is not a valid mcpServers document: ${error.message}`);
      throw error;
    }
    this.connections = new McpConnections(
      { connectMs: config.MCP_CONNECT_TIMEOUT_MS, callMs: config.MCP_CALL_TIMEOUT_MS, toolsTtlMs: 60_000 },
      logger,
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.connections.close();
  }

  /** Every server the workspace's sessions would get, with its state and tools (connecting where needed). */
  async status(workspaceId: string): Promise<McpServerStatus[]> {
    const servers = await this.declared(workspaceId);
    return Promise.all(servers.map((server) => this.probe(server)));
  }

  /** The tools of the servers that answer, and a line for each one that does not (for the model and the log). */
  async forTurn(workspaceId: string): Promise<{ tools: Map<string, AgentTool>; problems: McpServerStatus[] }> {
    const tools = new Map<string, AgentTool>();
    const problems: McpServerStatus[] = [];
    const servers = await this.declared(workspaceId);
    if (servers.length === 0) return { tools, problems };
    for (const server of servers) {
      const status = await this.probe(server);
      if (status.state !== 'ready' || server.kind !== 'remote') {
        problems.push(status);
        continue;
      }
      const listed = await this.connections.listTools(server.config);
      const call = (tool: string, args: Record<string, unknown>, signal?: AbortSignal) =>
        this.connections.callTool(server.config, tool, args, signal);
      for (const [name, tool] of toAgentTools(server.name, listed, call)) tools.set(name, tool);
    }
    return { tools, problems };
  }

  private async probe(server: DeclaredServer): Promise<McpServerStatus> {
    const base = { name: server.name, scope: server.scope, tools: [] };
    if (server.kind === 'invalid') return { ...base, transport: 'unknown', state: 'invalid', problem: server.problem };
    if (server.kind === 'stdio') {
      return {
        ...base,
        transport: 'stdio',
        state: 'unsupported',
        problem: "stdio MCP servers are to run in the session's sandbox container, which this Weft does not do yet; use a remote (url) server",
      };
    }
    const { url } = server.config;
    if (server.scope === 'workspace' && !hostAllowed(url, this.config.MCP_ALLOWED_HOSTS)) {
      return {
        ...base,
        transport: 'remote',
        url,
        state: 'refused',
        problem: `${new URL(url).hostname} is not on the server's MCP_ALLOWED_HOSTS, so a workspace may not connect to it`,
      };
    }
    const key = `${server.scope}:${server.name}:${url}`;
    const failed = this.failures.get(key);
    if (failed && Date.now() - failed.at < FAILURE_MEMORY_MS) return { ...base, transport: 'remote', url, state: 'failed', problem: failed.problem };
    try {
      const tools = await this.connections.listTools(server.config);
      this.failures.delete(key);
      return {
        ...base,
        transport: 'remote',
        url,
        state: 'ready',
        tools: tools.map((tool) => ({
          name: mcpToolName(server.name, tool.name),
          tool: tool.name,
          ...(tool.description ? { description: tool.description } : {}),
        })),
      };
    } catch (error) {
      const problem = `could not reach it: ${describe(error)}`;
      this.failures.set(key, { problem, at: Date.now() });
      this.logger.warn({ server: server.name, scope: server.scope, url, err: error }, 'MCP server unavailable');
      return { ...base, transport: 'remote', url, state: 'failed', problem };
    }
  }

  /** The admin's servers, then the workspace's; a workspace server cannot replace an admin's of the same name. */
  private async declared(workspaceId: string): Promise<DeclaredServer[]> {
    const own = await this.workspaceServers(workspaceId);
    const taken = new Set(this.serverScope.map((s) => s.name));
    const workspace = own.map((server): DeclaredServer =>
      taken.has(server.name)
        ? { name: server.name, scope: 'workspace', kind: 'invalid', problem: 'the server declares an MCP server of this name; the workspace cannot replace it' }
        : server,
    );
    return [...this.serverScope, ...workspace];
  }

  private async workspaceServers(workspaceId: string): Promise<DeclaredServer[]> {
    let text: string;
    try {
      const result = await this.rpc.request(Routes.toolsReadPath, { workspaceId, path: WORKSPACE_MCP_PATH });
      if (result.kind !== 'file') return [];
      text = Buffer.from(result.contentBase64, 'base64').toString('utf8');
    } catch (error) {
      if (error instanceof AppError && (error.code === ErrorCode.FileNotFound || error.code === ErrorCode.NotAFile)) return [];
      throw error;
    }
    try {
      return parseMcpServers(text, 'workspace');
    } catch (error) {
      if (!(error instanceof McpConfigError)) throw error;
      return [{ name: WORKSPACE_MCP_PATH, scope: 'workspace', kind: 'invalid', problem: `${WORKSPACE_MCP_PATH} is not valid: ${error.message}` }];
    }
  }
}
