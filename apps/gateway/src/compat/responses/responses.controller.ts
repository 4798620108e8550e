import { Body, Controller, Param, Query, Res, UseFilters } from '@nestjs/common';
import { apiRoutes } from '@weft/contracts';
import type { Response } from 'express';
import { CurrentPrincipal, type Principal } from '../../auth/principal';
import { Route } from '../../common/api-route.decorator';
import { OpenAiErrorFilter } from '../openai/openai-error.filter';
import { ResponsesService } from './responses.service';
import { StoredResponses } from './stored-responses.service';

/** OpenAI's Responses API at `/openai/v1/responses`, beside Chat Completions (Codex speaks only this). */
@Controller()
@UseFilters(OpenAiErrorFilter)
export class ResponsesController {
  constructor(
    private readonly responses: ResponsesService,
    private readonly stored: StoredResponses,
  ) {}

  @Route(apiRoutes.openAiResponses)
  create(@Body() body: unknown, @CurrentPrincipal() principal: Principal, @Res() res: Response): Promise<void> {
    return this.responses.create(principal, body, res);
  }

  @Route(apiRoutes.openAiResponseInputTokens)
  inputTokens(@Body() body: unknown, @CurrentPrincipal() principal: Principal, @Res() res: Response): Promise<void> {
    return this.responses.inputTokens(principal, body, res);
  }

  @Route(apiRoutes.openAiResponse)
  retrieve(@Param('id') id: string, @CurrentPrincipal() principal: Principal) {
    return this.stored.retrieve(principal.userId, id);
  }

  @Route(apiRoutes.openAiDeleteResponse)
  delete(@Param('id') id: string, @CurrentPrincipal() principal: Principal) {
    return this.stored.delete(principal.userId, id);
  }

  @Route(apiRoutes.openAiCancelResponse)
  cancel(@Param('id') id: string, @CurrentPrincipal() principal: Principal) {
    return this.stored.cancel(principal.userId, id);
  }

  @Route(apiRoutes.openAiResponseInputItems)
  inputItems(@Param('id') id: string, @Query() query: unknown, @CurrentPrincipal() principal: Principal) {
    return this.stored.inputItems(principal.userId, id, query);
  }
}
