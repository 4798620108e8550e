import { setImmediate as nextTurn } from 'node:timers/promises';
import { AppError, ErrorCode } from '@weft/contracts';
import type { EmbedCall, Embedded } from '../drivers/inference-driver';
import type { LlamaModel } from './llama-runtime';
import { SequencePool } from './sequence-pool';

type LlamaEmbeddingContext = Awaited<ReturnType<LlamaModel['createEmbeddingContext']>>;
type Tokens = ReturnType<LlamaModel['tokenize']>;

/** Tokens one embedding input may take: the embedding context is sized for one input at a time. */
export const EMBEDDING_CONTEXT_MAX = 8192;
/** Tokens all the inputs of one request may take together: the most evaluation one request asks for. */
export const EMBED_MAX_REQUEST_TOKENS = 131_072;
/**
 * Numbers one reply may carry (inputs × the model's vector size): about 20 bytes each as JSON,
 * so the reply stays well under NATS's 16 MB message limit instead of failing once the work is done.
 */
export const EMBED_MAX_REPLY_VALUES = 524_288;

/**
 * A model's embeddings, in a context of their own beside the chat context. Every input is
 * tokenized and checked before any is evaluated, so a request past the limits costs no
 * evaluation. Then the inputs of concurrent requests take the context one at a time, in weighted
 * fair order across users: a request of 256 inputs keeps another user's one input waiting for one
 * input, not 256. Between two inputs the event loop turns and a cancelled request stops. At most
 * `maxRequests` requests run or wait here; the next is refused with INFERENCE.BUSY, which the
 * gateway takes to another worker.
 */
export class EmbeddingRunner {
  private context?: Promise<LlamaEmbeddingContext>;
  /** Whose input runs next: one turn, as the context evaluates one input at a time. */
  private readonly turns = new SequencePool([0]);
  private admitted = 0;

  constructor(
    private readonly model: LlamaModel,
    private readonly contextSize: number,
    private readonly threads: number,
    private readonly maxRequests: number,
  ) {}

  async embed({ input, user, signal }: EmbedCall): Promise<Embedded> {
    if (this.admitted >= this.maxRequests) {
      throw new AppError(ErrorCode.InferenceBusy, `${this.admitted} embedding requests already run or wait for this model`, { queued: this.admitted, maxRequests: this.maxRequests }, true);
    }
    const size = this.model.embeddingVectorSize;
    if (input.length * size > EMBED_MAX_REPLY_VALUES) {
      const most = Math.max(1, Math.floor(EMBED_MAX_REPLY_VALUES / size));
      throw new AppError(ErrorCode.InvalidRequest, `This model's vectors hold ${size} numbers: at most ${most} inputs a request`, { param: 'input', maxInputs: most, vectorSize: size });
    }
    this.admitted++;
    try {
      const { tokenized, promptTokens } = await this.tokenize(input, signal);
      const context = await this.embeddingContext();
      const embeddings: number[][] = [];
      for (const tokens of tokenized) {
        const turn = await this.turns.acquire({ user, signal });
        try {
          embeddings.push([...(await context.getEmbeddingFor(tokens)).vector]);
        } finally {
          turn.release();
        }
        await nextTurn();
        signal.throwIfAborted();
      }
      return { embeddings, promptTokens };
    } finally {
      this.admitted--;
    }
  }

  async dispose(): Promise<void> {
    await (await this.context?.catch(() => undefined))?.dispose();
  }

  private async tokenize(input: readonly string[], signal: AbortSignal): Promise<{ tokenized: Tokens[]; promptTokens: number }> {
    const tokenized: Tokens[] = [];
    let promptTokens = 0;
    for (const [index, text] of input.entries()) {
      const tokens = this.model.tokenize(text);
      if (tokens.length > this.contextSize) {
        throw new AppError(ErrorCode.ContextLengthExceeded, `input[${index}] takes ${tokens.length} tokens; the embedding context holds ${this.contextSize}`, {
          param: `input[${index}]`,
          promptTokens: tokens.length,
          contextSize: this.contextSize,
        });
      }
      promptTokens += tokens.length;
      if (promptTokens > EMBED_MAX_REQUEST_TOKENS) {
        throw new AppError(
          ErrorCode.ContextLengthExceeded,
          `The inputs take more than ${EMBED_MAX_REQUEST_TOKENS} tokens together (past it at input[${index}]); send them in several requests`,
          { param: 'input', maxRequestTokens: EMBED_MAX_REQUEST_TOKENS },
        );
      }
      tokenized.push(tokens);
      await nextTurn();
      signal.throwIfAborted();
    }
    return { tokenized, promptTokens };
  }

  private embeddingContext(): Promise<LlamaEmbeddingContext> {
    if (!this.context) {
      const creating = this.model.createEmbeddingContext({ contextSize: this.contextSize, threads: this.threads });
      // A failed creation (no memory left) is tried again by the next request.
      void creating.catch(() => {
        if (this.context === creating) this.context = undefined;
      });
      this.context = creating;
    }
    return this.context;
  }
}
