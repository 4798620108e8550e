import { Body, Controller, Delete, Get, Header, HttpCode, Param, Patch, Post, Query, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { chainNameSchema } from '../chains/chain-schema';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { UserAuthGuard } from '../auth/user-auth.guard';
import { sessionIdSchema } from '../common/ids';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import {
  type CreateSessionBody,
  type ExportQuery,
  type PostMessageBody,
  type RunChainBody,
  type UpdateSessionBody,
  createSessionBodySchema,
  exportQuerySchema,
  postMessageBodySchema,
  runChainBodySchema,
  turnIdSchema,
  updateSessionBodySchema,
} from '@weft/contracts';
import { SessionsService } from './sessions.service';

export const sessionIdPipe = new ZodValidationPipe(sessionIdSchema);

@Controller('v1/sessions')
@UseGuards(UserAuthGuard)
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Post()
  @HttpCode(201)
  create(@CurrentPrincipal() p: Principal, @Body(new ZodValidationPipe(createSessionBodySchema)) body: CreateSessionBody) {
    return this.sessions.create(p.userId, body);
  }

  @Get()
  list(@CurrentPrincipal() p: Principal) {
    return this.sessions.list(p.userId);
  }

  @Get(':id')
  get(@CurrentPrincipal() p: Principal, @Param('id', sessionIdPipe) id: string) {
    return this.sessions.get(p.userId, id);
  }

  @Patch(':id')
  update(
    @CurrentPrincipal() p: Principal,
    @Param('id', sessionIdPipe) id: string,
    @Body(new ZodValidationPipe(updateSessionBodySchema)) body: UpdateSessionBody,
  ) {
    return this.sessions.update(p.userId, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  delete(@CurrentPrincipal() p: Principal, @Param('id', sessionIdPipe) id: string) {
    return this.sessions.delete(p.userId, id);
  }

  @Get(':id/export')
  async export(
    @CurrentPrincipal() p: Principal,
    @Param('id', sessionIdPipe) id: string,
    @Query(new ZodValidationPipe(exportQuerySchema)) query: ExportQuery,
    @Res({ passthrough: true }) res: Response,
  ) {
    const markdown = query.format === 'markdown';
    res.attachment(`${id}.${markdown ? 'md' : 'jsonl'}`);
    res.type(markdown ? 'text/markdown; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
    return this.sessions.export(p.userId, id, query.format);
  }

  @Get(':id/audit')
  @Header('Content-Type', 'application/x-ndjson; charset=utf-8')
  audit(@CurrentPrincipal() p: Principal, @Param('id', sessionIdPipe) id: string) {
    return this.sessions.audit(p.userId, id);
  }

  @Post(':id/turns/:turnId/cancel')
  @HttpCode(202)
  cancel(
    @CurrentPrincipal() p: Principal,
    @Param('id', sessionIdPipe) id: string,
    @Param('turnId', new ZodValidationPipe(turnIdSchema)) turnId: string,
  ) {
    return this.sessions.cancelTurn(p.userId, id, turnId);
  }

  @Get(':id/chains')
  listChains(@CurrentPrincipal() p: Principal, @Param('id', sessionIdPipe) id: string) {
    return this.sessions.listChains(p.userId, id);
  }

  @Post(':id/chains/:name')
  @HttpCode(202)
  runChain(
    @CurrentPrincipal() p: Principal,
    @Param('id', sessionIdPipe) id: string,
    @Param('name', new ZodValidationPipe(chainNameSchema)) name: string,
    @Body(new ZodValidationPipe(runChainBodySchema)) body: RunChainBody,
  ) {
    return this.sessions.runChain(p.userId, id, name, body);
  }

  @Post(':id/messages')
  @HttpCode(202)
  post(
    @CurrentPrincipal() p: Principal,
    @Param('id', sessionIdPipe) id: string,
    @Body(new ZodValidationPipe(postMessageBodySchema)) body: PostMessageBody,
  ) {
    return this.sessions.postMessage(p.userId, id, body);
  }
}
