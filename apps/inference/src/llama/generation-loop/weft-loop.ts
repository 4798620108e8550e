import type { LlamaSampling } from '../sampling';
import type { LlamaContextSequence, LlamaModel, NodeLlamaCpp } from '../llama-runtime';
import { StopDetector } from './stop-detector';
import type { StopTriggers } from './stop-triggers';
import { TokenText } from './token-text';

type Grammar = InstanceType<NodeLlamaCpp['LlamaGrammar']>;
type GrammarState = InstanceType<NodeLlamaCpp['LlamaGrammarEvaluationState']>;
type EvaluateOptions = NonNullable<Parameters<LlamaContextSequence['evaluate']>[1]>;
/** node-llama-cpp's branded token number. */
type Token = ReturnType<LlamaModel['tokenize']>[number];

/** LlamaChat's stop reasons that this loop can end with. */
export type LoopStopReason = 'eogToken' | 'stopGenerationTrigger' | 'maxTokens';

export interface WeftLoopInput {
  lib: Pick<NodeLlamaCpp, 'LlamaGrammarEvaluationState'>;
  model: LlamaModel;
  sequence: LlamaContextSequence;
  /** The rendered prompt, ending where the model's reply begins. */
  prompt: readonly number[];
  sampling: Omit<LlamaSampling, 'customStopTriggers'>;
  stops: StopTriggers;
  grammar?: Grammar;
  /** 0 or less: until a stop (the caller caps it by the context's room). */
  maxTokens: number;
  signal: AbortSignal;
  onToken: () => void;
  onText: (text: string) => void;
}

export interface WeftLoopResult {
  text: string;
  stopReason: LoopStopReason;
}

/** LlamaChat's defaults, kept so both loops sample the same tokens. */
const REPEAT_PENALTY_LAST_TOKENS = 64;
const EVALUATION_PRIORITY = 5;

/**
 * One reply generated on a sequence with node-llama-cpp's token generator, without LlamaChat:
 * per token it renders the token's text, looks for stop strings, and streams what is final. The
 * sampling (temperature, top-k/p, min-p, seed, repeat penalty over the reply's last 64 tokens
 * except newlines, grammar) is native, set up as LlamaChat sets it. The sequence keeps the tokens
 * it shares with the prompt (KV reuse) and evaluates the rest; the generator queues each next
 * token into the context's shared batches like any other sequence's.
 */
export async function runWeftLoop(input: WeftLoopInput): Promise<WeftLoopResult> {
  const { model, sequence, signal } = input;
  throwIfAborted(signal);
  const prompt = input.prompt as readonly Token[];
  const pending = await alignSequence(sequence, prompt);
  throwIfAborted(signal);

  const generated: Token[] = [];
  const text = new TokenText((tokens, previous) => model.detokenize(tokens as readonly Token[], false, previous as readonly Token[]), prompt);
  const stops = new StopDetector(input.stops.texts, input.stops.tokenSequences);
  const output = new ReplyText(input.grammar?.trimWhitespaceSuffix === true, input.onText);
  const grammarState: GrammarState | undefined = input.grammar
    ? new input.lib.LlamaGrammarEvaluationState({ model, grammar: input.grammar })
    : undefined;
  const nl = model.tokens.nl;
  const iterator = sequence.evaluate([...pending], evaluateOptions(input, grammarState, () => penaltyTokens(generated, nl)));
  try {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      throwIfAborted(signal);
      const token = next.value;
      input.onToken();
      if (model.isEogToken(token)) return output.end(text.flush(), stops, 'eogToken');
      generated.push(token);
      const step = stops.push(text.push(token, model.isSpecialToken(token)), [token]);
      output.add(step.release);
      if (step.stopped) return output.end('', undefined, 'stopGenerationTrigger');
      if (input.maxTokens > 0 && generated.length >= input.maxTokens) return output.end(text.flush(), stops, 'maxTokens');
    }
    return output.end(text.flush(), stops, 'eogToken');
  } finally {
    await iterator.return();
  }
}

function evaluateOptions(input: WeftLoopInput, grammarEvaluationState: GrammarState | undefined, punishTokens: () => Token[]): EvaluateOptions {
  const { temperature, topK, topP, minP, seed, repeatPenalty } = input.sampling;
  return withoutUndefined({
    temperature,
    topK,
    topP,
    minP,
    seed,
    grammarEvaluationState,
    repeatPenalty:
      repeatPenalty === false
        ? undefined
        : { punishTokens, maxPunishTokens: REPEAT_PENALTY_LAST_TOKENS, penalty: repeatPenalty?.penalty },
    evaluationPriority: EVALUATION_PRIORITY,
    yieldEogToken: true,
  });
}

/**
 * Trims the sequence to the longest prefix it shares with the prompt, as LlamaChat does, and
 * returns the prompt tokens still to evaluate: at least the last one, whose logits give the first
 * token of the reply.
 */
async function alignSequence(sequence: LlamaContextSequence, prompt: readonly Token[]): Promise<readonly Token[]> {
  if (prompt.length === 0) throw new Error('the prompt has no tokens');
  if (prompt.length === 1 && sequence.nextTokenIndex !== 0) {
    await sequence.eraseContextTokenRanges([{ start: 0, end: sequence.nextTokenIndex }]);
    return prompt;
  }
  await sequence.adaptStateToTokens(prompt.slice(0, -1), false);
  return prompt.slice(sequence.nextTokenIndex);
}

/** The reply's last tokens for the repeat penalty, newlines exempt (LlamaChat's `penalizeNewLine` default). */
function penaltyTokens(generated: readonly Token[], nl: Token | null): Token[] {
  const recent = generated.slice(-REPEAT_PENALTY_LAST_TOKENS);
  return nl == null ? recent : recent.filter((token) => token !== nl);
}

/**
 * The reply's final text as it is streamed. With a grammar that trims trailing whitespace
 * (node-llama-cpp's JSON grammars), whitespace is streamed only once text follows it.
 */
class ReplyText {
  private text = '';
  private whitespace = '';

  constructor(
    private readonly trimWhitespaceSuffix: boolean,
    private readonly onText: (text: string) => void,
  ) {}

  add(release: string): void {
    if (!release) return;
    let ready = this.whitespace + release;
    this.whitespace = '';
    if (this.trimWhitespaceSuffix) {
      const trailing = /\s*$/.exec(ready)?.[0] ?? '';
      this.whitespace = trailing;
      ready = ready.slice(0, ready.length - trailing.length);
    }
    if (!ready) return;
    this.text += ready;
    this.onText(ready);
  }

  /** `rest`: text of held tokens; the stop detector's held text is released unless a stop was met. */
  end(rest: string, stops: StopDetector | undefined, stopReason: LoopStopReason): WeftLoopResult {
    if (stops) {
      const step = stops.push(rest);
      this.add(step.release);
      if (step.stopped) return { text: this.text, stopReason: 'stopGenerationTrigger' };
      this.add(stops.flush());
    }
    return { text: this.text, stopReason };
  }
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
