import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, type EmbedResult, type GenerateChunk, type GenerateRequest, type GenerateResult } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { Response } from 'express';
import type { Principal } from '../auth/principal';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { MeteredEmbeddings } from '../accounting/metered-embeddings';
import { MeteredFleet } from '../accounting/metered-fleet';
import { LOGGER } from '../infra/tokens';
import { ModelsService } from '../models/models.service';
import { badRequest } from './compat-error';
import { PromptChanges } from './prompt-changes';
import { conversationKey, promptCacheSessionKey } from './conversation-key';

/** A generation whose first message has arrived: the model was found and a worker took it. */
export interface StartedGeneration {
  /** Names the generation for `weft.inference.v1.cancel`, from any replica. */
  readonly requestId: string;
  /** Text deltas, then the result; ends early when the client goes away. */
  deltas(): AsyncGenerator<string, GenerateResult>;
  /** Waits for the whole reply (a non-streamed response). */
  result(): Promise<GenerateResult>;
}

/** How a route can steer a generation beyond its request. */
export interface StartOptions {
  /** A client's own cache key (OpenAI's `prompt_cache_key`): the session id is derived from it instead of the conversation. */
  promptCacheKey?: string;
}

/**
 * Generations for the OpenAI- and Anthropic-compatible routes: the same fleet, routing,
 * cancellation, quotas, usage and fair share as agent turns, under a session id derived from the conversation so stateless
 * clients reuse the KV cache of their earlier requests.
 */
@Injectable()
export class CompatInference {
  constructor(
    private readonly fleet: MeteredFleet,
    private readonly embeddings: MeteredEmbeddings,
    private readonly models: ModelsService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    // In the constructor: SWC sets field initialisers before the parameter properties they read.
    this.promptChanges = config.COMPAT_LOG_PROMPT_CHANGES ? new PromptChanges() : undefined;
  }

  private readonly promptChanges: PromptChanges | undefined;

  /**
   * Embeddings from a worker serving the model, metered and ruled as a generation is
   * (`MeteredEmbeddings`), and cancelled on the worker when the client disconnects.
   */
  async embed(principal: Principal, model: string, input: string[], res: Response): Promise<EmbedResult> {
    const info = await this.models.assertKnown(model, principal.userId);
    if (!info.embeddings) {
      const { models } = await this.models.listFor(principal.userId);
      const serving = models.filter((m) => m.embeddings).map((m) => m.id);
      throw badRequest(`Model "${model}" does not serve embeddings; models that do: ${serving.join(', ') || '(none)'}`, 'model');
    }
    const abort = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) abort.abort(new AppError(ErrorCode.GenerationCancelled, 'The client disconnected'));
    };
    res.on('close', onClose);
    const requestId = randomUUID();
    try {
      const result = await this.embeddings.embed(principal.userId, { model, input, requestId }, { timeoutMs: this.config.INFERENCE_TIMEOUT_MS, signal: abort.signal });
      this.log.info({ userId: principal.userId, model, requestId, inputs: input.length, promptTokens: result.promptTokens }, 'compatible API embeddings done');
      return result;
    } finally {
      res.off('close', onClose);
    }
  }

  /**
   * Starts the generation and waits for its first message, so that an unknown model, a full
   * fleet or a bad request still becomes an HTTP error rather than a broken stream. The
   * generation is cancelled on the worker when the client disconnects.
   */
  async start(principal: Principal, request: Omit<GenerateRequest, 'sessionId' | 'requestId'>, res: Response, options: StartOptions = {}): Promise<StartedGeneration> {
    await this.models.assertKnown(request.model, principal.userId);
    const abort = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) abort.abort(new AppError(ErrorCode.GenerationCancelled, 'The client disconnected'));
    };
    res.on('close', onClose);
    const requestId = randomUUID();
    const full: GenerateRequest = {
      ...request,
      requestId,
      user: { id: principal.userId },
      // Code completions of one user share a key: the next keystroke's prompt shares most of its prefix.
      sessionId: request.completion
        ? `${conversationKey(principal.userId, request.model, [])}:completion`
        : options.promptCacheKey
          ? promptCacheSessionKey(principal.userId, request.model, options.promptCacheKey)
          : conversationKey(principal.userId, request.model, request.messages),
    };
    const stream = this.fleet.generate(full, { timeoutMs: this.config.INFERENCE_TIMEOUT_MS, signal: abort.signal })[Symbol.asyncIterator]();
    let first: IteratorResult<GenerateChunk>;
    try {
      // A model loading on demand: these APIs have no event for it, so the client waits for the
      // first token within its own timeout (the worker's reports keep the stream's timeout away).
      do first = await stream.next();
      while (!first.done && first.value.type === 'model.loading');
    } catch (error) {
      res.off('close', onClose);
      throw error;
    }
    const log = this.log.child({ userId: principal.userId, model: request.model, requestId });
    const change = request.completion ? undefined : this.promptChanges?.record(full.sessionId ?? '', request.messages);
    const generation: StartedGeneration = {
      requestId,
      async result() {
        const deltas = generation.deltas();
        let next = await deltas.next();
        while (!next.done) next = await deltas.next();
        return next.value;
      },
      async *deltas() {
        try {
          let next = first;
          while (!next.done) {
            const chunk = next.value;
            if (chunk.type === 'done') {
              log.info({ usage: chunk.result.usage, finishReason: chunk.result.finishReason }, 'compatible API generation done');
              if (change) log.info({ sessionId: full.sessionId, ...change, usage: chunk.result.usage }, 'the prompt changed an earlier request of its conversation');
              return chunk.result;
            }
            if (chunk.type === 'delta') yield chunk.text;
            next = await stream.next();
          }
          if (abort.signal.aborted) throw abort.signal.reason;
          throw new AppError(ErrorCode.GenerationFailed, 'The inference stream ended without a result');
        } finally {
          res.off('close', onClose);
          await stream.return?.(undefined);
        }
      },
    };
    return generation;
  }
}
