import { randomBytes } from 'node:crypto';
import { Body, Controller, Get, HttpCode, Param, Post, Res, UseFilters, UseGuards } from '@nestjs/common';
import { AppError, ErrorCode, type ModelInfo } from '@weft/contracts';
import type { Response } from 'express';
import { CurrentPrincipal, type Principal } from '../../auth/principal';
import { UserAuthGuard } from '../../auth/user-auth.guard';
import { ModelsService } from '../../models/models.service';
import { CompatInference } from '../compat-inference.service';
import { toCompatError } from '../compat-error';
import { parseBody } from '../request-fields';
import { openEventStream, writeEvent } from '../sse-response';
import { chatCompletionRequestSchema, fromChatCompletionRequest } from './chat-request';
import { chatChunk, chatCompletion, closingChunks, usageChunk, type CompletionIdentity } from './chat-response';
import { openAiErrorBody, OpenAiErrorFilter } from './openai-error.filter';

/** When the gateway started, as the `created` of every model (the registry keeps no date). */
const STARTED_AT = Math.floor(Date.now() / 1000);

/**
 * OpenAI's API at `/openai/v1`: give clients that base URL and a Weft API key. Same keys,
 * models and fleet as agent turns.
 */
@Controller('openai/v1')
@UseGuards(UserAuthGuard)
@UseFilters(OpenAiErrorFilter)
export class OpenAiController {
  constructor(
    private readonly models: ModelsService,
    private readonly inference: CompatInference,
  ) {}

  @Get('models')
  async listModels() {
    const { models } = await this.models.list();
    return { object: 'list', data: models.map(openAiModel) };
  }

  /** Model ids may hold a slash (`scripted/demo`): Express 5 gives the wildcard as segments. */
  @Get('models/*id')
  async getModel(@Param('id') id: string | string[]) {
    return openAiModel(await this.models.assertKnown(Array.isArray(id) ? id.join('/') : id));
  }

  @Post('chat/completions')
  @HttpCode(200)
  async chatCompletions(@Body() body: unknown, @CurrentPrincipal() principal: Principal, @Res() res: Response): Promise<void> {
    const request = parseBody(chatCompletionRequestSchema, body);
    const generation = await this.inference.start(principal, fromChatCompletionRequest(request), res);
    const identity: CompletionIdentity = { id: `chatcmpl-${randomBytes(12).toString('hex')}`, model: request.model, created: Math.floor(Date.now() / 1000) };
    if (!request.stream) {
      res.json(chatCompletion(identity, await generation.result()));
      return;
    }
    const deltas = generation.deltas();
    openEventStream(res);
    writeEvent(res, chatChunk(identity, { role: 'assistant', content: '' }));
    try {
      let next = await deltas.next();
      while (!next.done) {
        if (next.value) writeEvent(res, chatChunk(identity, { content: next.value }));
        next = await deltas.next();
      }
      for (const chunk of closingChunks(identity, next.value)) writeEvent(res, chunk);
      if (request.stream_options?.include_usage) writeEvent(res, usageChunk(identity, next.value));
      writeEvent(res, '[DONE]');
    } catch (error) {
      // Headers are gone: the error travels as an event, which the SDKs raise as an APIError.
      if (!(error instanceof AppError && error.code === ErrorCode.GenerationCancelled)) writeEvent(res, openAiErrorBody(toCompatError(error, 429)));
    } finally {
      res.end();
    }
  }
}

function openAiModel(model: ModelInfo) {
  return { id: model.id, object: 'model', created: STARTED_AT, owned_by: 'weft', context_window: model.contextSize };
}
