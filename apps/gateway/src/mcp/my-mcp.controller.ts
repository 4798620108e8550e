import { Body, Controller } from '@nestjs/common';
import { AppError, ErrorCode, apiRoutes } from '@weft/contracts';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { Route } from '../common/api-route.decorator';
import { type DeclaredServer, McpConfigError, parseMcpServers } from './mcp-config';
import { UserMcpRepository } from './user-mcp.repository';

/** The most a user's document may hold. */
const MAX_DOCUMENT_CHARS = 64_000;

/**
 * A user's own MCP servers, for all their sessions, in the `mcpServers` format. The admin's
 * settings still decide what they may reach (MCP_ALLOWED_HOSTS, MCP_USER_STDIO).
 */
@Controller()
export class MyMcpController {
  constructor(private readonly servers: UserMcpRepository) {}

  @Route(apiRoutes.myMcp)
  async get(@CurrentPrincipal() p: Principal): Promise<unknown> {
    const text = await this.servers.document(p.userId);
    return text ? (JSON.parse(text) as unknown) : { mcpServers: {} };
  }

  /** Replaces the document; one that is not valid, or holds an invalid server, is refused naming it. */
  @Route(apiRoutes.setMyMcp)
  async put(@CurrentPrincipal() p: Principal, @Body() body: unknown): Promise<unknown> {
    let text: string;
    try {
      text = JSON.stringify(body ?? null);
    } catch {
      throw invalid('the document is nested too deeply'); // RangeError from a hostile body
    }
    if (text.length > MAX_DOCUMENT_CHARS) throw invalid(`the document is over ${MAX_DOCUMENT_CHARS} characters`);
    let servers: DeclaredServer[];
    try {
      servers = parseMcpServers(text, 'user');
    } catch (error) {
      if (error instanceof McpConfigError) throw invalid(error.message);
      throw error;
    }
    const bad = servers.flatMap((s) => (s.kind === 'invalid' ? [`${s.name}: ${s.problem}`] : []));
    if (bad.length > 0) throw invalid(bad.join('; '));
    await this.servers.put(p.userId, text);
    return this.get(p);
  }

  @Route(apiRoutes.clearMyMcp)
  async clear(@CurrentPrincipal() p: Principal): Promise<void> {
    await this.servers.clear(p.userId);
  }
}

function invalid(problem: string): AppError {
  return new AppError(ErrorCode.ValidationFailed, `Not a valid mcpServers document: ${problem}`);
}
