import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentPrincipal, type Principal } from '../../auth/principal';
import { UserAuthGuard } from '../../auth/user-auth.guard';
import { OpenAiErrorFilter } from '../openai/openai-error.filter';
import { ResponsesService } from './responses.service';
import { StoredResponses } from './stored-responses.service';

/** OpenAI's Responses API at `/openai/v1/responses`, beside Chat Completions (Codex speaks only this). */
@Controller('openai/v1/responses')
@UseGuards(UserAuthGuard)
@UseFilters(OpenAiErrorFilter)
export class ResponsesController {
  constructor(
    private readonly responses: ResponsesService,
    private readonly stored: StoredResponses,
  ) {}

  @Post()
  @HttpCode(200)
  create(@Body() body: unknown, @CurrentPrincipal() principal: Principal, @Res() res: Response): Promise<void> {
    return this.responses.create(principal, body, res);
  }

  @Post('input_tokens')
  @HttpCode(200)
  inputTokens(@Body() body: unknown, @CurrentPrincipal() principal: Principal, @Res() res: Response): Promise<void> {
    return this.responses.inputTokens(principal, body, res);
  }

  @Get(':id')
  retrieve(@Param('id') id: string, @CurrentPrincipal() principal: Principal) {
    return this.stored.retrieve(principal.userId, id);
  }

  @Delete(':id')
  delete(@Param('id') id: string, @CurrentPrincipal() principal: Principal) {
    return this.stored.delete(principal.userId, id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  cancel(@Param('id') id: string, @CurrentPrincipal() principal: Principal) {
    return this.stored.cancel(principal.userId, id);
  }

  @Get(':id/input_items')
  inputItems(@Param('id') id: string, @Query() query: unknown, @CurrentPrincipal() principal: Principal) {
    return this.stored.inputItems(principal.userId, id, query);
  }
}
