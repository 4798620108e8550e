import type { LlamaContextSequence, LlamaModel } from '../llama-runtime';
import { importNodeLlamaCppInternal } from '../node-llama-cpp-internals';
import { sampleNowOrQueued, type SamplingContext } from '../sample-now-patch';

/** node-llama-cpp's branded token number. */
type Token = ReturnType<LlamaModel['tokenize']>[number];
export type EvaluateOptions = NonNullable<Parameters<LlamaContextSequence['evaluate']>[1]>;

/** What Weft's loop reads of a token generator: `sequence.evaluate`'s, or TokenSteps. */
export interface TokenIterator {
  next(): Promise<IteratorResult<Token, void>>;
  return(): Promise<unknown>;
}

interface Sampler {
  readonly _sampler: object;
  applyConfig(config: object): unknown;
  dispose(): void;
}
type SamplerClass = new (model: LlamaModel) => Sampler;

interface QueuedDecode {
  sequenceId: number;
  tokens: Token[];
  firstTokenSequenceIndex: number;
  logits: boolean[];
  evaluationPriority: number;
  tokenMeter: unknown;
  afterBatchAction?: (sequenceStateLength: number) => unknown;
}
/** The value the sampling gave for each logit asked for, by the token's index in the sequence. */
type Decoded = [number, unknown][];

interface ContextInternals {
  readonly contextSize: number;
  readonly _ctx: SamplingContext;
  _decodeTokens(decode: QueuedDecode, logitDataMapper: (batchLogitIndex: number) => unknown): Promise<Decoded>;
}
interface SequenceInternals {
  readonly disposed: boolean;
  readonly model: LlamaModel;
  readonly tokenMeter: unknown;
  readonly _sequenceId: number;
  readonly _context: ContextInternals;
  readonly _tokenPredictor?: unknown;
  readonly _loadedTokenPredictions: readonly unknown[];
  /** Whether the sequence keeps checkpoints of its state (recurrent, hybrid and sliding-window models). */
  readonly needsCheckpoints?: boolean;
  _nextTokenIndex: number;
  _contextTokens: Token[];
  _resolveSamplerConfig(options: EvaluateOptions): object;
  _takeIntervalCheckpointIfNeededAfterBatch(sequenceStateLength: number): unknown;
}

/** node-llama-cpp's default priority for a sequence's decodes (LlamaChat's too). */
const DEFAULT_PRIORITY = 5;

let samplerClass: Promise<SamplerClass | undefined> | undefined;

function loadSamplerClass(): Promise<SamplerClass | undefined> {
  samplerClass ??= importNodeLlamaCppInternal<{ LlamaSampler?: SamplerClass }>('evaluator/LlamaContext/LlamaSampler.js').then(
    ({ LlamaSampler }) => (typeof LlamaSampler === 'function' ? LlamaSampler : undefined),
    () => undefined,
  );
  return samplerClass;
}

/**
 * The sequence's next tokens: `tokens` decoded, then one sampled token per step, as
 * `sequence.evaluate(tokens, options)` yields them, through TokenSteps where this node-llama-cpp
 * has what they use, else through `evaluate` itself. TokenSteps yields end-of-generation tokens
 * like any other (Weft's loop decides what ends a reply), so without `yieldEogToken` it is
 * `evaluate`, which ends there.
 */
export async function generateTokens(sequence: LlamaContextSequence, tokens: readonly Token[], options: EvaluateOptions): Promise<TokenIterator> {
  const Sampler = await loadSamplerClass();
  const internals = sequence as unknown as SequenceInternals;
  if (!options.yieldEogToken || !Sampler || !TokenSteps.fits(internals)) return sequence.evaluate([...tokens], options);
  return new TokenSteps(internals, Sampler, tokens, options);
}

/**
 * One sequence's generation step by step, the way `sequence.evaluate` makes it, less what that
 * costs per token: three nested async generators, a lock per token, the sampler's whole config
 * resolved and handed to the addon again (a Uint32Array, a seed from the clock, ~20 options read
 * through N-API), a promise per sampling, and a copy of the sequence's whole token list
 * (`concat`), which with a 30,000-token agent prompt is 240 KB of garbage per token.
 *
 * Each step queues its tokens with the context's own `_decodeTokens`, so they join the batches
 * every other sequence's decodes go in (and Weft's batch patches apply), and samples on the
 * calling thread with Weft's build of the addon. The sampler's config is set once: it changes per
 * token only with a repeat penalty (the reply's last tokens), and is then set again each step as
 * evaluate does. Where the context has no room left, the step goes through the sequence's own
 * decode, which shifts the context as evaluate would.
 */
export class TokenSteps implements TokenIterator {
  private readonly sampler: Sampler;
  /** The sequence's checkpoint after each batch, where its model needs them: else nothing, as asking costs two calls into the addon per token (`isHybrid`, `isRecurrent`). */
  private readonly afterBatch?: (sequenceStateLength: number) => unknown;
  private pending: Token[];
  private closed = false;
  private inFlight?: Promise<unknown>;

  /** Whether this sequence is one TokenSteps can drive: node-llama-cpp's internals as this code knows them, no token predictor. */
  static fits(sequence: SequenceInternals): boolean {
    const context = sequence._context as Partial<ContextInternals> | undefined;
    return (
      sequence._tokenPredictor == null &&
      Array.isArray(sequence._contextTokens) &&
      Array.isArray(sequence._loadedTokenPredictions) &&
      typeof sequence._nextTokenIndex === 'number' &&
      typeof sequence._resolveSamplerConfig === 'function' &&
      typeof sequence._takeIntervalCheckpointIfNeededAfterBatch === 'function' &&
      typeof context?._decodeTokens === 'function' &&
      typeof context._ctx === 'object'
    );
  }

  constructor(
    private readonly sequence: SequenceInternals,
    Sampler: SamplerClass,
    tokens: readonly Token[],
    private readonly options: EvaluateOptions,
  ) {
    if (tokens.length === 0) throw new Error('no tokens to evaluate');
    this.pending = [...tokens];
    this.sampler = new Sampler(sequence.model);
    this.sampler.applyConfig(sequence._resolveSamplerConfig(options));
    if (sequence.needsCheckpoints !== false) this.afterBatch = sequence._takeIntervalCheckpointIfNeededAfterBatch;
    // Its own copy, grown in place from here on: the list it had may be held elsewhere (a state file's tokens).
    sequence._contextTokens = sequence._contextTokens.slice();
  }

  async next(): Promise<IteratorResult<Token, void>> {
    if (this.closed) return { done: true, value: undefined };
    const step = this.step();
    this.inFlight = step;
    try {
      return { done: false, value: await step };
    } finally {
      this.inFlight = undefined;
    }
  }

  /** Frees the sampler, after the step in flight, if any. */
  async return(): Promise<IteratorResult<Token, void>> {
    if (!this.closed) {
      this.closed = true;
      await this.inFlight?.catch(() => undefined);
      this.sampler.dispose();
    }
    return { done: true, value: undefined };
  }

  private async step(): Promise<Token> {
    const { sequence, pending } = this;
    if (sequence.disposed) throw new Error('the sequence was disposed during the generation');
    if (this.options.repeatPenalty) this.sampler.applyConfig(sequence._resolveSamplerConfig(this.options));
    // Logits for the last token only: it gives the next.
    const logits = pending.map((_, i) => i === pending.length - 1);
    const value = this.hasRoomFor(pending.length) ? await this.decode(pending, logits) : await this.decodeWithContextShift(pending, logits);
    if (value instanceof Error) throw value;
    if (typeof value !== 'number' || value === -1) throw new Error('Failed to sample next token');
    const token = value as Token;
    this.pending = [token];
    return token;
  }

  private hasRoomFor(count: number): boolean {
    const { sequence } = this;
    return sequence._loadedTokenPredictions.length === 0 && sequence._nextTokenIndex + count <= sequence._context.contextSize - 1;
  }

  private get priority(): number {
    return this.options.evaluationPriority ?? DEFAULT_PRIORITY;
  }

  private async decode(tokens: Token[], logits: boolean[]): Promise<unknown> {
    const { sequence } = this;
    const decoded = await sequence._context._decodeTokens(
      {
        sequenceId: sequence._sequenceId,
        tokens,
        firstTokenSequenceIndex: sequence._nextTokenIndex,
        logits,
        evaluationPriority: this.priority,
        tokenMeter: sequence.tokenMeter,
        afterBatchAction: this.afterBatch,
      },
      this.sample,
    );
    sequence._nextTokenIndex += tokens.length;
    for (const token of tokens) sequence._contextTokens.push(token);
    return decoded.at(-1)?.[1];
  }

  /** The sequence's own decode, which frees room first by its context shift (erasing the oldest tokens by default), as evaluate's. */
  private async decodeWithContextShift(tokens: Token[], logits: boolean[]): Promise<unknown> {
    const sequence = this.sequence as unknown as {
      _contextShift: object;
      _decodeTokens(...args: unknown[]): Promise<unknown[]>;
    };
    const decoded = await sequence._decodeTokens(
      tokens,
      logits,
      this.priority,
      this.sequence.tokenMeter,
      sequence._contextShift,
      this.sample,
      this.sequence._takeIntervalCheckpointIfNeededAfterBatch,
    );
    return decoded[tokens.length - 1];
  }

  /**
   * Called by the context after the batch's decode, under its lock. A failure is the value, so
   * that it fails this generation alone: thrown there, it would fail the batch's dispatch.
   */
  private readonly sample = (batchLogitIndex: number): unknown => {
    try {
      const sampled = sampleNowOrQueued(this.sequence._context._ctx, batchLogitIndex, this.sampler._sampler);
      return sampled instanceof Promise ? sampled.catch((error: unknown) => asError(error)) : sampled;
    } catch (error) {
      return asError(error);
    }
  };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
