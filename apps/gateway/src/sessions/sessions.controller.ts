import { Body, Controller, Header, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { chainNameSchema } from '../chains/chain-schema';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { Route } from '../common/api-route.decorator';
import { sessionIdSchema } from '../common/ids';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import {
  type CreateSessionBody,
  type ExportQuery,
  type PostMessageBody,
  type RunChainBody,
  type UpdateSessionBody,
  apiRoutes,
  turnIdSchema,
} from '@weft/contracts';
import { SessionsService } from './sessions.service';

export const sessionIdPipe = new ZodValidationPipe(sessionIdSchema);

@Controller()
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Route(apiRoutes.createSession)
  create(@CurrentPrincipal() p: Principal, @Body() body: CreateSessionBody) {
    return this.sessions.create(p.userId, body);
  }

  @Route(apiRoutes.sessions)
  list(@CurrentPrincipal() p: Principal) {
    return this.sessions.list(p.userId);
  }

  @Route(apiRoutes.session)
  get(@CurrentPrincipal() p: Principal, @Param('id', sessionIdPipe) id: string) {
    return this.sessions.get(p.userId, id);
  }

  @Route(apiRoutes.updateSession)
  update(
    @CurrentPrincipal() p: Principal,
    @Param('id', sessionIdPipe) id: string,
    @Body() body: UpdateSessionBody,
  ) {
    return this.sessions.update(p.userId, id, body);
  }

  @Route(apiRoutes.deleteSession)
  delete(@CurrentPrincipal() p: Principal, @Param('id', sessionIdPipe) id: string) {
    return this.sessions.delete(p.userId, id);
  }

  @Route(apiRoutes.exportSession)
  async export(
    @CurrentPrincipal() p: Principal,
    @Param('id', sessionIdPipe) id: string,
    @Query() query: ExportQuery,
    @Res({ passthrough: true }) res: Response,
  ) {
    const markdown = query.format === 'markdown';
    res.attachment(`${id}.${markdown ? 'md' : 'jsonl'}`);
    res.type(markdown ? 'text/markdown; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
    return this.sessions.export(p.userId, id, query.format);
  }

  @Route(apiRoutes.sessionAudit)
  @Header('Content-Type', 'application/x-ndjson; charset=utf-8')
  audit(@CurrentPrincipal() p: Principal, @Param('id', sessionIdPipe) id: string) {
    return this.sessions.audit(p.userId, id);
  }

  @Route(apiRoutes.cancelTurn)
  cancel(
    @CurrentPrincipal() p: Principal,
    @Param('id', sessionIdPipe) id: string,
    @Param('turnId', new ZodValidationPipe(turnIdSchema)) turnId: string,
  ) {
    return this.sessions.cancelTurn(p.userId, id, turnId);
  }

  @Route(apiRoutes.chains)
  listChains(@CurrentPrincipal() p: Principal, @Param('id', sessionIdPipe) id: string) {
    return this.sessions.listChains(p.userId, id);
  }

  @Route(apiRoutes.runChain)
  runChain(
    @CurrentPrincipal() p: Principal,
    @Param('id', sessionIdPipe) id: string,
    @Param('name', new ZodValidationPipe(chainNameSchema)) name: string,
    @Body() body: RunChainBody,
  ) {
    return this.sessions.runChain(p.userId, id, name, body);
  }

  @Route(apiRoutes.postMessage)
  post(
    @CurrentPrincipal() p: Principal,
    @Param('id', sessionIdPipe) id: string,
    @Body() body: PostMessageBody,
  ) {
    return this.sessions.postMessage(p.userId, id, body);
  }
}
