import { randomBytes } from 'node:crypto';
import { Body, Controller, Res, UseFilters } from '@nestjs/common';
import { AppError, ErrorCode, type GenerateResult, apiRoutes, replyTokenLimit } from '@weft/contracts';
import type { Response } from 'express';
import { CurrentPrincipal, type Principal } from '../../auth/principal';
import { Route } from '../../common/api-route.decorator';
import { ModelsService } from '../../models/models.service';
import { CompatInference } from '../compat-inference.service';
import { CompatRequestLimits } from '../compat-request-limits';
import { toCompatError } from '../compat-error';
import { openEventStream, writeEvent } from '../sse-response';
import { anthropicErrorBody, AnthropicErrorFilter } from './anthropic-error.filter';
import { countTokensRequestSchema, fromMessagesRequest, messagesRequestSchema, parseMessagesBody } from './messages-request';
import { anthropicUsage, message, messageStart, stopReason, stopSequence, toolUseBlocks, type MessageIdentity } from './messages-response';

/** When the gateway started, as every model's `created_at` (the registry keeps no date). */
const STARTED_AT = new Date().toISOString();

/**
 * Anthropic's Messages API at `/anthropic/v1`: give clients the base URL `…/anthropic`
 * (Claude Code: `ANTHROPIC_BASE_URL`). Keys come as `x-api-key` or `Authorization: Bearer`.
 */
@Controller()
@UseFilters(AnthropicErrorFilter)
export class AnthropicController {
  constructor(
    private readonly inference: CompatInference,
    private readonly models: ModelsService,
    private readonly limits: CompatRequestLimits,
  ) {}

  @Route(apiRoutes.anthropicModels)
  async listModels(@CurrentPrincipal() principal: Principal) {
    const { models } = await this.models.listFor(principal.userId);
    const data = models.map((m) => ({ type: 'model', id: m.id, display_name: m.id, created_at: STARTED_AT, max_input_tokens: m.contextSize, max_tokens: replyTokenLimit(m.contextSize) }));
    return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
  }

  @Route(apiRoutes.anthropicMessages)
  async messages(@Body() body: unknown, @CurrentPrincipal() principal: Principal, @Res() res: Response): Promise<void> {
    this.limits.assertWithin(body, 'messages');
    const request = parseMessagesBody(messagesRequestSchema, body);
    const generation = await this.inference.start(principal, fromMessagesRequest(request), res);
    const identity: MessageIdentity = { id: `msg_${randomBytes(12).toString('hex')}`, model: request.model };
    if (!request.stream) {
      res.json(message(identity, await generation.result()));
      return;
    }
    const deltas = generation.deltas();
    openEventStream(res);
    const send = (data: { type: string } & Record<string, unknown>) => writeEvent(res, data, data.type);
    send(messageStart(identity));
    let blocks = 0;
    let textOpen = false;
    try {
      let next = await deltas.next();
      while (!next.done) {
        if (next.value) {
          if (!textOpen) send({ type: 'content_block_start', index: blocks, content_block: { type: 'text', text: '' } });
          textOpen = true;
          send({ type: 'content_block_delta', index: blocks, delta: { type: 'text_delta', text: next.value } });
        }
        next = await deltas.next();
      }
      const result: GenerateResult = next.value;
      const tools = toolUseBlocks(result);
      if (!textOpen && tools.length === 0) send({ type: 'content_block_start', index: blocks, content_block: { type: 'text', text: '' } });
      if (textOpen || tools.length === 0) send({ type: 'content_block_stop', index: blocks++ });
      for (const tool of tools) {
        const index = blocks++;
        send({ type: 'content_block_start', index, content_block: { ...tool, input: {} } });
        send({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(tool.input) } });
        send({ type: 'content_block_stop', index });
      }
      send({ type: 'message_delta', delta: { stop_reason: stopReason(result), stop_sequence: stopSequence(result) }, usage: anthropicUsage(result.usage) });
      send({ type: 'message_stop' });
    } catch (error) {
      if (!(error instanceof AppError && error.code === ErrorCode.GenerationCancelled)) send(anthropicErrorBody(toCompatError(error, 529)));
    } finally {
      res.end();
    }
  }

  /** Tokens the prompt takes with the model's own template and tokenizer; nothing is generated. */
  @Route(apiRoutes.anthropicCountTokens)
  async countTokens(@Body() body: unknown, @CurrentPrincipal() principal: Principal, @Res() res: Response): Promise<void> {
    this.limits.assertWithin(body, 'messages');
    const request = parseMessagesBody(countTokensRequestSchema, body);
    const generation = await this.inference.start(principal, { ...fromMessagesRequest(request), countOnly: true }, res);
    const { usage } = await generation.result();
    res.json({ input_tokens: usage.promptTokens });
  }
}
