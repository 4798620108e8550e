import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { UserAuthGuard } from '../auth/user-auth.guard';
import { AppError, ErrorCode } from '@weft/contracts';
import { sessionIdPipe } from '../sessions/sessions.controller';
import { SessionsRepository } from '../sessions/sessions.repository';
import { McpService } from './mcp.service';

@Controller('v1/sessions')
@UseGuards(UserAuthGuard)
export class McpController {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly mcp: McpService,
  ) {}

  /** The session's MCP servers, their state and tools: what its next turn will offer the model. */
  @Get(':id/mcp')
  async servers(@CurrentPrincipal() p: Principal, @Param('id', sessionIdPipe) id: string) {
    const session = await this.sessions.findOwned(p.userId, id);
    if (!session) throw new AppError(ErrorCode.NotFound, `Session ${id} not found`);
    return { servers: await this.mcp.status({ ...session, sessionId: session.id }) };
  }
}
