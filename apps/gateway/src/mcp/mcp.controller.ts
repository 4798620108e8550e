import { Controller, Param } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { AppError, ErrorCode, apiRoutes } from '@weft/contracts';
import { Route } from '../common/api-route.decorator';
import { sessionIdPipe } from '../sessions/sessions.controller';
import { SessionsRepository } from '../sessions/sessions.repository';
import { McpService } from './mcp.service';

@Controller()
export class McpController {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly mcp: McpService,
  ) {}

  /** The session's MCP servers, their state and tools: what its next turn will offer the model. */
  @Route(apiRoutes.sessionMcp)
  async servers(@CurrentPrincipal() p: Principal, @Param('id', sessionIdPipe) id: string) {
    const session = await this.sessions.findOwned(p.userId, id);
    if (!session) throw new AppError(ErrorCode.NotFound, `Session ${id} not found`);
    return { servers: await this.mcp.status({ ...session, sessionId: session.id }) };
  }
}
