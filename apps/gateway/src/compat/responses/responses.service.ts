import { Inject, Injectable } from '@nestjs/common';
import { AppError, type ChatMessage, ErrorCode, type GenerateResult } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { Response } from 'express';
import type { Principal } from '../../auth/principal';
import { LOGGER } from '../../infra/tokens';
import { CompatInference, type StartedGeneration } from '../compat-inference.service';
import { toCompatError } from '../compat-error';
import { openAiErrorBody } from '../openai/openai-error.filter';
import { CompatRequestLimits } from '../compat-request-limits';
import { assertWithinLimits, parseBody } from '../request-fields';
import { openEventStream, writeEvent } from '../sse-response';
import { completedResponse, ResponseEventWriter } from './response-events';
import { responseEcho, responseId, responseObject, type ResponseEcho, type ResponseObject } from './response-object';
import { ResponseStore } from './response-store.repository';
import { fromResponsesRequest, inputTokensRequestSchema, responsesRequestSchema, type TranslatedRequest } from './responses-request';
import { StoredResponses, storedInputItems } from './stored-responses.service';

const CANCELLED = { code: 'cancelled', message: 'The response was cancelled' };

/** One `POST /responses` in flight: what it answers with and what it stores. */
interface Creation {
  principal: Principal;
  echo: ResponseEcho;
  translated: TranslatedRequest;
  generation: StartedGeneration;
  inputItems: Array<Record<string, unknown>>;
  referencedItemIds: string[];
}

/**
 * OpenAI's Responses API over the same generations as Chat Completions: a request (after the
 * stored conversation it continues) becomes a generate request; the reply comes back whole or as
 * typed events; with `store`, the response is kept for its owner.
 */
@Injectable()
export class ResponsesService {
  constructor(
    private readonly inference: CompatInference,
    private readonly limits: CompatRequestLimits,
    private readonly stored: StoredResponses,
    private readonly store: ResponseStore,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  async create(principal: Principal, body: unknown, res: Response): Promise<void> {
    assertWithinLimits(body, 'input');
    this.limits.assertWithin(body, 'responses');
    const parsed = parseBody(responsesRequestSchema, body);
    const { input, referencedItemIds } = await this.stored.resolveReferences(principal.userId, parsed.input);
    const request = { ...parsed, input };
    const translated = fromResponsesRequest(request, await this.stored.history(principal.userId, request.previous_response_id));
    if (translated.tools.leftOut.length > 0) {
      this.log.warn({ userId: principal.userId, model: request.model, tools: translated.tools.leftOut }, 'hosted tools left out of a Responses request: Weft cannot run them');
    }
    const options = request.prompt_cache_key ? { promptCacheKey: request.prompt_cache_key } : {};
    const generation = await this.inference.start(principal, translated.generate, res, options);
    const creation: Creation = { principal, echo: responseEcho(responseId(), request), translated, generation, inputItems: storedInputItems(request.input), referencedItemIds };
    // The generation runs already: a store that fails now must not leave it unread (only cancel needs this record).
    await this.save(creation, responseObject(creation.echo, { status: 'in_progress', output: [] })).catch((err: unknown) =>
      this.log.warn({ err, userId: principal.userId, responseId: creation.echo.id }, 'storing a response in progress failed'),
    );
    if (request.stream) await this.stream(creation, res);
    else res.json(await this.whole(creation));
  }

  /** Tokens the request's prompt takes with the model's own template and tokenizer; nothing is generated. */
  async inputTokens(principal: Principal, body: unknown, res: Response): Promise<void> {
    assertWithinLimits(body, 'input');
    this.limits.assertWithin(body, 'responses');
    const parsed = parseBody(inputTokensRequestSchema, body);
    const request = { ...parsed, input: (await this.stored.resolveReferences(principal.userId, parsed.input ?? [])).input };
    const { generate } = fromResponsesRequest(request, await this.stored.history(principal.userId, request.previous_response_id));
    const generation = await this.inference.start(principal, { ...generate, countOnly: true }, res);
    const { usage } = await generation.result();
    res.json({ object: 'response.input_tokens', input_tokens: usage.promptTokens });
  }

  private async whole(creation: Creation): Promise<ResponseObject> {
    let result: GenerateResult;
    try {
      result = await creation.generation.result();
    } catch (error) {
      if (!isCancelled(error)) {
        await this.save(creation, responseObject(creation.echo, { status: 'failed', output: [], error: errorOf(error) }));
        throw error;
      }
      const cancelled = responseObject(creation.echo, { status: 'cancelled', output: [], error: CANCELLED });
      await this.save(creation, cancelled);
      return cancelled;
    }
    const response = completedResponse(creation.echo, creation.translated.tools.namespaced, result);
    await this.save(creation, response, result);
    return response;
  }

  /** Events as the reply is generated; a failure after the first byte is a `response.failed` event. */
  private async stream(creation: Creation, res: Response): Promise<void> {
    openEventStream(res);
    const writer = new ResponseEventWriter(creation.echo, creation.translated.tools.namespaced, (event) => writeEvent(res, event, event.type));
    writer.started();
    let response: ResponseObject;
    let result: GenerateResult | undefined;
    try {
      const deltas = creation.generation.deltas();
      let next = await deltas.next();
      while (!next.done) {
        writer.text(next.value);
        next = await deltas.next();
      }
      result = next.value;
      response = writer.finished(result);
    } catch (error) {
      // A client that went away gets nothing more (writes are dropped); a cancel from elsewhere still sees the end.
      if (isCancelled(error)) response = writer.failed(CANCELLED, 'cancelled');
      else {
        this.log.warn({ err: error, userId: creation.principal.userId, responseId: creation.echo.id }, 'Responses stream failed after it started');
        response = writer.failed(errorOf(error));
      }
    } finally {
      res.end();
    }
    await this.save(creation, response, result);
  }

  private async save(creation: Creation, response: ResponseObject, result?: GenerateResult): Promise<void> {
    if (!creation.echo.store) return;
    const reply: ChatMessage[] = result ? [{ role: 'assistant', content: result.text, ...(result.toolCalls.length ? { toolCalls: result.toolCalls } : {}) }] : [];
    const running = response.status === 'in_progress' ? { requestId: creation.generation.requestId } : {};
    await this.store.save(creation.principal.userId, { response, conversation: [...creation.translated.conversation, ...reply], inputItems: creation.inputItems, referencedItemIds: creation.referencedItemIds, ...running });
  }
}

function isCancelled(error: unknown): boolean {
  return error instanceof AppError && error.code === ErrorCode.GenerationCancelled;
}

/** An error as OpenAI names it, for a failed response. */
function errorOf(error: unknown): { code: string; message: string; param: string | null } {
  const { code, message, param } = openAiErrorBody(toCompatError(error, 429)).error;
  return { code, message, param };
}
