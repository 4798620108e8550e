import { randomBytes } from 'node:crypto';
import { Body, Controller, Param, Res, UseFilters } from '@nestjs/common';
import { AppError, EMBED_MAX_INPUT_CHARS, EMBED_MAX_INPUTS, ErrorCode, type GenerateResult, type ModelInfo, apiRoutes, replyTokenLimit } from '@weft/contracts';
import type { Response } from 'express';
import { z } from 'zod';
import { CurrentPrincipal, type Principal } from '../../auth/principal';
import { Route } from '../../common/api-route.decorator';
import { ModelsService } from '../../models/models.service';
import { CompatInference, type StartedGeneration } from '../compat-inference.service';
import { CompatRequestLimits } from '../compat-request-limits';
import { toCompatError } from '../compat-error';
import { assertWithinLimits, parseBody } from '../request-fields';
import { openEventStream, writeEvent } from '../sse-response';
import { chatCompletionRequestSchema, fromChatCompletionRequest } from './chat-request';
import { chatChunk, chatCompletion, closingChunks, textCompletion, usageChunk, type CompletionIdentity } from './chat-response';
import { completionRequestSchema, fromCompletionRequest } from './completion-request';
import { openAiErrorBody, OpenAiErrorFilter } from './openai-error.filter';

/** Texts only (token arrays are refused), as many and as long as the worker takes them. */
const embeddingInput = z.string().max(EMBED_MAX_INPUT_CHARS, `An input may hold at most ${EMBED_MAX_INPUT_CHARS} characters`);
const embeddingsRequestSchema = z.object({
  model: z.string().min(1),
  input: z.union([embeddingInput, z.array(embeddingInput).min(1).max(EMBED_MAX_INPUTS, `At most ${EMBED_MAX_INPUTS} inputs a request`)]),
  /** The `openai` SDK asks for base64 (little-endian float32) unless told otherwise. */
  encoding_format: z.enum(['float', 'base64']).optional(),
});

/** When the gateway started, as the `created` of every model (the registry keeps no date). */
const STARTED_AT = Math.floor(Date.now() / 1000);

/**
 * OpenAI's API at `/openai/v1`: give clients that base URL and a Weft API key. Same keys,
 * models and fleet as agent turns.
 */
@Controller()
@UseFilters(OpenAiErrorFilter)
export class OpenAiController {
  constructor(
    private readonly models: ModelsService,
    private readonly inference: CompatInference,
    private readonly limits: CompatRequestLimits,
  ) {}

  @Route(apiRoutes.openAiModels)
  async listModels(@CurrentPrincipal() principal: Principal) {
    const { models } = await this.models.listFor(principal.userId);
    return { object: 'list', data: models.map(openAiModel) };
  }

  /** Model ids may hold a slash (`scripted/demo`): Express 5 gives the wildcard as segments. */
  @Route(apiRoutes.openAiModel)
  async getModel(@Param('id') id: string | string[], @CurrentPrincipal() principal: Principal) {
    return openAiModel(await this.models.assertUsable(principal.userId, Array.isArray(id) ? id.join('/') : id));
  }

  @Route(apiRoutes.openAiChat)
  async chatCompletions(@Body() body: unknown, @CurrentPrincipal() principal: Principal, @Res() res: Response): Promise<void> {
    assertWithinLimits(body, 'messages');
    this.limits.assertWithin(body, 'chat');
    const request = parseBody(chatCompletionRequestSchema, body);
    const generation = await this.inference.start(principal, fromChatCompletionRequest(request), res);
    const identity: CompletionIdentity = { id: `chatcmpl-${randomBytes(12).toString('hex')}`, model: request.model, created: Math.floor(Date.now() / 1000) };
    if (!request.stream) {
      res.json(chatCompletion(identity, await generation.result()));
      return;
    }
    await this.stream(res, generation, {
      opening: [chatChunk(identity, { role: 'assistant', content: '' })],
      delta: (text) => chatChunk(identity, { content: text }),
      closing: (result) => [...closingChunks(identity, result), ...(request.stream_options?.include_usage ? [usageChunk(identity, result)] : [])],
    });
  }

  @Route(apiRoutes.openAiEmbeddings)
  async embeddings(@Body() body: unknown, @CurrentPrincipal() principal: Principal, @Res({ passthrough: true }) res: Response) {
    const request = parseBody(embeddingsRequestSchema, body);
    const input = typeof request.input === 'string' ? [request.input] : request.input;
    const result = await this.inference.embed(principal, request.model, input, res);
    return {
      object: 'list',
      data: result.embeddings.map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: request.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector,
      })),
      model: request.model,
      usage: { prompt_tokens: result.promptTokens, total_tokens: result.promptTokens },
    };
  }

  /** Code completion: continues `prompt`, or fills in between `prompt` and `suffix` (FIM). */
  @Route(apiRoutes.openAiCompletions)
  async completions(@Body() body: unknown, @CurrentPrincipal() principal: Principal, @Res() res: Response): Promise<void> {
    assertWithinLimits(body, 'messages');
    this.limits.assertWithin(body, 'completions');
    const request = parseBody(completionRequestSchema, body);
    const generation = await this.inference.start(principal, fromCompletionRequest(request), res);
    const identity: CompletionIdentity = { id: `cmpl-${randomBytes(12).toString('hex')}`, model: request.model, created: Math.floor(Date.now() / 1000) };
    if (!request.stream) {
      const result = await generation.result();
      res.json(textCompletion(identity, result.text, finishOf(result), result.usage));
      return;
    }
    await this.stream(res, generation, {
      delta: (text) => textCompletion(identity, text, null),
      closing: (result) => [
        textCompletion(identity, '', finishOf(result)),
        ...(request.stream_options?.include_usage ? [{ ...textCompletion(identity, '', null, result.usage), choices: [] }] : []),
      ],
    });
  }

  /** Writes deltas as they come, then the closing chunks and `[DONE]`; a failure goes out as an error event. */
  private async stream(
    res: Response,
    generation: StartedGeneration,
    chunks: { opening?: unknown[]; delta: (text: string) => unknown; closing: (result: GenerateResult) => unknown[] },
  ): Promise<void> {
    const { opening = [], delta, closing } = chunks;
    openEventStream(res);
    for (const chunk of opening) writeEvent(res, chunk);
    const deltas = generation.deltas();
    try {
      let next = await deltas.next();
      while (!next.done) {
        if (next.value) writeEvent(res, delta(next.value));
        next = await deltas.next();
      }
      for (const chunk of closing(next.value)) writeEvent(res, chunk);
      writeEvent(res, '[DONE]');
    } catch (error) {
      // Headers are gone: the error travels as an event, which the SDKs raise as an APIError.
      if (!(error instanceof AppError && error.code === ErrorCode.GenerationCancelled)) writeEvent(res, openAiErrorBody(toCompatError(error, 429)));
    } finally {
      res.end();
    }
  }
}

function finishOf(result: GenerateResult): 'stop' | 'length' {
  return result.finishReason === 'length' ? 'length' : 'stop';
}

/** OpenAI's model object has no limits: these are the fields OpenAI-compatible servers add (vLLM, OpenRouter, LM Studio, Codex's catalogue). */
function openAiModel(model: ModelInfo) {
  const window = model.contextSize;
  const output = replyTokenLimit(window);
  return { id: model.id, object: 'model', created: STARTED_AT, owned_by: 'weft', context_window: window, context_length: window, max_model_len: window, max_output_tokens: output };
}
