import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { AppError, ErrorCode, Routes, assertUnreachable, type SandboxNetwork } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { RpcClient } from '@weft/messaging';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AgentTool } from '../agent-core/tools/define-tool';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { LOGGER } from '../infra/tokens';
import {
  type DeclaredServer,
  McpConfigError,
  type McpScope,
  type StdioServerConfig,
  expandFromEnvironment,
  hostAllowed,
  parseMcpServers,
} from './mcp-config';
import { McpConnections } from './mcp-connections';
import { McpProbes, withinOrElse } from './mcp-probes';
import { McpSandboxMeter } from './mcp-sandbox-meter';
import { UserMcpRepository } from './user-mcp.repository';
import { addServerTools, describe, toAgentTools } from './mcp-tools';
import { mcpToolName } from './mcp-tool-name';

/** A workspace's own MCP servers, in the format other agents read. */
export const WORKSPACE_MCP_PATH = '.weft/mcp.json';
/** What a reply over NATS may take beyond the sandbox's own deadline. */
const RPC_MARGIN_MS = 5_000;
/** A server that just failed is not asked again for this long: every turn would wait for its timeout. */
const FAILURE_MEMORY_MS = 30_000;
/** How long a listing waits for servers being connected or started before it answers with what it knows. */
const STATUS_WAIT_MS = 1_000;
/** How long it then waits for a starting stdio server's stderr so far. */
const STATE_TIMEOUT_MS = 2_000;

/** `starting`: being connected (remote) or started in the session's container (stdio) right now. */
export type McpServerState = 'starting' | 'ready' | 'failed' | 'refused' | 'invalid';

export interface McpServerStatus {
  name: string;
  scope: McpScope;
  transport: 'remote' | 'stdio' | 'unknown';
  url?: string;
  state: McpServerState;
  problem?: string;
  /** While a stdio server starts: the last of what it wrote to stderr so far. */
  said?: string;
  tools: Array<{ name: string; tool: string; description?: string }>;
}

/** A probe's outcome: the status, the tools to offer when it answered, and whether it failed (remembered a while). */
interface Probed {
  status: McpServerStatus;
  listed?: Tool[];
  failed: boolean;
}

type McpSettings = Pick<
  GatewaySettings,
  'MCP_SERVERS' | 'MCP_ALLOWED_HOSTS' | 'MCP_USER_STDIO' | 'MCP_WORKSPACE_STDIO' | 'MCP_CONNECT_TIMEOUT_MS' | 'MCP_STDIO_START_TIMEOUT_MS' | 'MCP_CALL_TIMEOUT_MS'
>;

/** The session an MCP server serves: a stdio one runs in its sandbox container, as its commands do. */
export interface McpSession {
  sessionId: string;
  ownerId: string;
  workspaceId: string;
  sandboxNetwork?: SandboxNetwork;
  sandboxWorkspace?: 'read-only' | 'read-write';
  sandboxImage?: string | null;
}

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
  private readonly probes = new McpProbes<Probed>(FAILURE_MEMORY_MS);

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: McpSettings,
    private readonly rpc: RpcClient,
    private readonly userServers: UserMcpRepository,
    private readonly meter: McpSandboxMeter,
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

  /**
   * Every server the workspace's sessions would get, with what is known of it now: a server still
   * connecting or starting after STATUS_WAIT_MS is `starting` (its start goes on; ask again), so a
   * listing never waits for a start's timeout.
   */
  async status(session: McpSession): Promise<McpServerStatus[]> {
    const servers = await this.declared(session);
    return Promise.all(
      servers.map(async (server) => {
        const probed = await withinOrElse<Probed | undefined>(this.probe(session, server), STATUS_WAIT_MS, undefined);
        return probed?.status ?? this.starting(session, server);
      }),
    );
  }

  /** A server still starting; a stdio one with what it wrote to stderr so far (npm's failed fetches, say). */
  private async starting(session: McpSession, server: DeclaredServer): Promise<McpServerStatus> {
    const status: McpServerStatus = { ...describeServer(server), state: 'starting', tools: [] };
    if (server.kind !== 'stdio') return status;
    const target = this.stdioTarget(session, server.name, server.config, this.config.MCP_STDIO_START_TIMEOUT_MS);
    try {
      const { stderrTail } = await this.rpc.request(Routes.sandboxMcpServerState, target, { timeoutMs: STATE_TIMEOUT_MS });
      return stderrTail ? { ...status, said: stderrTail } : status;
    } catch (error) {
      // Only a detail of the listing: the start goes on and its end is reported.
      this.logger.debug({ server: server.name, err: error }, 'could not read the state of a starting stdio MCP server');
      return status;
    }
  }

  /** The tools of the servers that answer, and a line for each one that does not (for the model and the log). */
  async forTurn(session: McpSession): Promise<{ tools: Map<string, AgentTool>; problems: McpServerStatus[] }> {
    const tools = new Map<string, AgentTool>();
    const problems: McpServerStatus[] = [];
    const servers = await this.declared(session);
    for (const server of servers) {
      const { status, listed } = await this.probe(session, server);
      if (status.state !== 'ready' || !listed || server.kind === 'invalid') {
        problems.push(status);
        continue;
      }
      const call =
        server.kind === 'remote'
          ? (tool: string, args: Record<string, unknown>, signal?: AbortSignal) => this.connections.callTool(server.config, tool, args, signal)
          : (tool: string, args: Record<string, unknown>) => this.callStdio(session, server.name, server.config, tool, args);
      const shadowing = addServerTools(tools, toAgentTools(server.name, listed, call));
      if (shadowing.length > 0) this.logger.warn({ server: server.name, scope: server.scope, tools: shadowing }, 'MCP tools left out: an earlier server offers them');
    }
    return { tools, problems };
  }

  /** A server's state, and its tools when it answers; one probe at a time per session and server. */
  private probe(session: McpSession, server: DeclaredServer): Promise<Probed> {
    const base = { ...describeServer(server), tools: [] };
    if (server.kind === 'invalid') return Promise.resolve({ status: { ...base, state: 'invalid', problem: server.problem }, failed: false });
    const refusal = this.refusal(server);
    if (refusal) return Promise.resolve({ status: { ...base, state: 'refused', problem: refusal }, failed: false });
    const key = `${session.sessionId}:${server.scope}:${server.name}:${JSON.stringify(server.config)}`;
    return this.probes.probe(key, async () => {
      try {
        const listed =
          server.kind === 'remote' ? await this.connections.listTools(server.config) : await this.listStdio(session, server.name, server.config);
        const tools = listed.map((tool) => ({
          name: mcpToolName(server.name, tool.name),
          tool: tool.name,
          ...(tool.description ? { description: tool.description } : {}),
        }));
        return { status: { ...base, state: 'ready', tools }, listed, failed: false };
      } catch (error) {
        const problem = server.kind === 'remote' ? `could not reach it: ${describe(error)}` : describe(error);
        this.logger.warn({ server: server.name, scope: server.scope, err: error }, 'MCP server unavailable');
        return { status: { ...base, state: 'failed', problem }, failed: true };
      }
    });
  }

  /** Why the admin's settings keep a user's or a workspace's server out; undefined when they let it in. */
  private refusal(server: Exclude<DeclaredServer, { kind: 'invalid' }>): string | undefined {
    if (server.scope === 'server') return undefined;
    const whose = server.scope === 'user' ? 'a user' : 'a workspace';
    if (server.kind === 'stdio') {
      const [allowed, setting] =
        server.scope === 'user' ? [this.config.MCP_USER_STDIO, 'MCP_USER_STDIO'] : [this.config.MCP_WORKSPACE_STDIO, 'MCP_WORKSPACE_STDIO'];
      return allowed ? undefined : `the server's ${setting} is off, so ${whose} may not start stdio servers`;
    }
    return hostAllowed(server.config.url, this.config.MCP_ALLOWED_HOSTS)
      ? undefined
      : `${new URL(server.config.url).hostname} is not on the server's MCP_ALLOWED_HOSTS, so ${whose} may not connect to it`;
  }

  private async listStdio(session: McpSession, name: string, config: StdioServerConfig): Promise<Tool[]> {
    const target = this.stdioTarget(session, name, config, this.config.MCP_STDIO_START_TIMEOUT_MS);
    const { tools } = await this.meter.run(this.meteredAs(session, name, target.timeoutMs), () =>
      this.rpc.request(Routes.sandboxMcpListTools, target, { timeoutMs: target.timeoutMs + RPC_MARGIN_MS }),
    );
    return tools as Tool[];
  }

  private async callStdio(session: McpSession, name: string, config: StdioServerConfig, tool: string, args: Record<string, unknown>) {
    const target = this.stdioTarget(session, name, config, this.config.MCP_CALL_TIMEOUT_MS);
    const result = await this.meter.run(this.meteredAs(session, name, target.timeoutMs), () =>
      this.rpc.request(Routes.sandboxMcpCallTool, { ...target, tool, arguments: args }, { timeoutMs: target.timeoutMs + RPC_MARGIN_MS }),
    );
    return result as CallToolResult;
  }

  /** A stdio server's requests count against the session owner's sandbox seconds, as its commands do. */
  private meteredAs(session: McpSession, server: string, timeoutMs: number) {
    return { ownerId: session.ownerId, workspaceId: session.workspaceId, sessionId: session.sessionId, server, timeoutMs };
  }

  /** The session's container, as its commands get it: same workspace, writability, network and image. */
  private stdioTarget(session: McpSession, name: string, config: StdioServerConfig, timeoutMs: number) {
    return {
      workspaceId: session.workspaceId,
      session: { sessionId: session.sessionId, ownerId: session.ownerId },
      writable: session.sandboxWorkspace === 'read-write',
      network: session.sandboxNetwork ?? 'none',
      ...(session.sandboxImage ? { image: session.sandboxImage } : {}),
      server: { name, command: config.command, args: config.args ?? [], env: config.env ?? {} },
      timeoutMs,
    };
  }

  /** The admin's servers, then the user's, then the workspace's; a later scope cannot take an earlier one's name. */
  private async declared(session: McpSession): Promise<DeclaredServer[]> {
    const [user, workspace] = await Promise.all([this.userServers.servers(session.ownerId), this.workspaceServers(session.workspaceId)]);
    const all: DeclaredServer[] = [...this.serverScope];
    for (const server of [...user, ...workspace]) {
      const owner = all.find((s) => s.name === server.name);
      all.push(
        owner
          ? { name: server.name, scope: server.scope, kind: 'invalid', problem: `the ${owner.scope} scope declares an MCP server of this name; ${server.scope} servers cannot replace it` }
          : server,
      );
    }
    return all;
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

/** Name, scope and where a server is, as every status of it starts. */
function describeServer(server: DeclaredServer): Pick<McpServerStatus, 'name' | 'scope' | 'transport' | 'url'> {
  const base = { name: server.name, scope: server.scope };
  switch (server.kind) {
    case 'invalid':
      return { ...base, transport: 'unknown' };
    case 'remote':
      return { ...base, transport: 'remote', url: server.config.url };
    case 'stdio':
      return { ...base, transport: 'stdio' };
    default:
      return assertUnreachable(server);
  }
}
