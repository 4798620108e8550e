import type { ChatModelFunctions } from 'node-llama-cpp';
import type { LlamaSampling } from '../sampling';
import type { ChatWrapper, Llama, LlamaContextSequence, LlamaModel, NodeLlamaCpp } from '../llama-runtime';
import type { CallGrammars } from './call-grammars';
import { runCallPhase, type CallChunk } from './call-phase';
import type { LoopInternals } from './loop-internals';
import { alignSequence, throwIfAborted } from './sequence-steps';
import { StartText } from './start-text';
import { StopDetector, type TriggerSet } from './stop-detector';
import type { StopTriggers } from './stop-triggers';
import { TokenKinds } from './token-kinds';
import { generateTokens, type EvaluateOptions } from './token-steps';
import { TokenText } from './token-text';

type Grammar = InstanceType<NodeLlamaCpp['LlamaGrammar']>;
type GrammarState = InstanceType<NodeLlamaCpp['LlamaGrammarEvaluationState']>;
/** node-llama-cpp's branded token number. */
type Token = ReturnType<LlamaModel['tokenize']>[number];

/** LlamaChat's stop reasons that this loop can end with. */
export type LoopStopReason = 'eogToken' | 'stopGenerationTrigger' | 'maxTokens' | 'functionCalls';

/** Native function calling, as the chat template defines it. */
export interface ToolCalling {
  internals: LoopInternals;
  llama: Llama;
  settings: ChatWrapper['settings']['functions'];
  functions: ChatModelFunctions;
  grammars: CallGrammars;
  /** Where the call syntax begins in the reply's text (none: the template starts every reply in a call). */
  triggers: TriggerSet;
  /** The template opens the reply inside a call. */
  initiallyEngaged: boolean;
  /** The prompt rendered with the reply's text so far, as LlamaChat renders it before a call. */
  renderWithText: (text: string) => readonly number[];
  onCallChunk: (chunk: CallChunk) => void;
}

export interface WeftLoopInput {
  lib: Pick<NodeLlamaCpp, 'LlamaGrammarEvaluationState' | 'LlamaText' | 'SpecialToken' | 'jsonDumps'>;
  model: LlamaModel;
  sequence: LlamaContextSequence;
  /** The rendered prompt, ending where the model's reply begins. */
  prompt: readonly number[];
  sampling: Omit<LlamaSampling, 'customStopTriggers'>;
  stops: StopTriggers;
  grammar?: Grammar;
  tools?: ToolCalling;
  /** The chat template's text a reply may begin with and must not keep (LlamaChat's ignoreStartText). */
  startText?: StartText;
  /** 0 or less: until a stop (the caller caps it by the context's room). */
  maxTokens: number;
  signal: AbortSignal;
  onToken: () => void;
  onText: (text: string) => void;
}

export interface WeftLoopResult {
  text: string;
  stopReason: LoopStopReason;
  /** The stop string the reply ended at, where one did. */
  stopText?: string;
  functionCalls?: { functionName: string; params: unknown }[];
}

/** LlamaChat's defaults, kept so both loops sample the same tokens. */
const REPEAT_PENALTY_LAST_TOKENS = 64;
const EVALUATION_PRIORITY = 5;

/** Where the reply's text gave way to a function call. */
interface CallStart {
  /** Text after the call syntax in the token that completed it. */
  rest: string;
  /** The reply's tokens before the call syntax: what the repeat penalty looks at during the call. */
  textTokens: Token[];
  /** Start text left out of the reply, which LlamaChat keeps in the context after the reply's text. */
  ignored: string;
}

/**
 * One reply generated on a sequence with node-llama-cpp's token generator, without LlamaChat:
 * per token it renders the token's text, looks for stop strings, and streams what is final. The
 * sampling (temperature, top-k/p, min-p, seed, repeat penalty over the reply's last 64 tokens
 * except newlines, grammar) is native, set up as LlamaChat sets it. The sequence keeps the tokens
 * it shares with the prompt (KV reuse) and evaluates the rest; the generator queues each next
 * token into the context's shared batches like any other sequence's. With tools, the start of
 * the template's call syntax in the text hands over to the call phase (call-phase.ts).
 */
export async function runWeftLoop(input: WeftLoopInput): Promise<WeftLoopResult> {
  const { tools } = input;
  if (tools?.initiallyEngaged) return callPhase(input, tools, '', { rest: '', textTokens: [], ignored: '' }, 0);
  const generated: Token[] = [];
  const output = new ReplyText(input.grammar?.trimWhitespaceSuffix === true, input.onText, input.startText ?? new StartText(undefined));
  const text = await textPhase(input, generated, output);
  if ('stopReason' in text) return text;
  return callPhase(input, tools as ToolCalling, output.text, text, generated.length);
}

async function callPhase(input: WeftLoopInput, tools: ToolCalling, text: string, start: CallStart, generated: number): Promise<WeftLoopResult> {
  const { lib, model, sequence, signal, maxTokens } = input;
  const rendered = (text === '' ? input.prompt : tools.renderWithText(text)) as readonly Token[];
  const context = start.ignored ? [...rendered, ...model.tokenize(start.ignored, false, 'trimLeadingSpace')] : rendered;
  const penalty = penaltyTokens(start.textTokens, model.tokens.nl);
  const result = await runCallPhase({
    lib,
    internals: tools.internals,
    llama: tools.llama,
    model,
    sequence,
    settings: tools.settings,
    functions: tools.functions,
    grammars: tools.grammars,
    context,
    leftover: start.rest,
    generated,
    maxTokens,
    signal,
    options: (grammarState) => evaluateOptions(input, grammarState, () => penalty),
    onToken: input.onToken,
    onCallChunk: tools.onCallChunk,
  });
  return {
    text,
    stopReason: result.stopReason,
    functionCalls: result.calls.map(({ functionName, params }) => ({ functionName, params })),
  };
}

/** The reply's text, token by token, up to a stop, or up to the start of a function call. */
async function textPhase(input: WeftLoopInput, generated: Token[], output: ReplyText): Promise<WeftLoopResult | CallStart> {
  const { model, sequence, signal } = input;
  throwIfAborted(signal);
  const prompt = input.prompt as readonly Token[];
  const pending = await alignSequence(sequence, prompt);
  throwIfAborted(signal);

  const text = new TokenText((tokens, previous) => model.detokenize(tokens as readonly Token[], false, previous as readonly Token[]), prompt);
  const stops = new StopDetector(input.stops.texts, input.stops.tokenSequences, input.tools?.triggers);
  const pieces = new TextPieces();
  const grammarState: GrammarState | undefined = input.grammar
    ? new input.lib.LlamaGrammarEvaluationState({ model, grammar: input.grammar })
    : undefined;
  const nl = model.tokens.nl;
  const kinds = TokenKinds.of(model);
  const iterator = await generateTokens(sequence, pending, evaluateOptions(input, grammarState, () => penaltyTokens(generated, nl)));
  try {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      throwIfAborted(signal);
      const token = next.value;
      input.onToken();
      if (kinds.isEog(token)) return output.end(text.flush(), stops, 'eogToken');
      generated.push(token);
      const piece = text.push(token, kinds.isSpecial(token));
      pieces.add(piece, generated.length);
      const step = stops.push(piece, [token]);
      output.add(step.release);
      if (step.call) {
        output.finish();
        const { ignored } = output;
        return { rest: step.call.rest, textTokens: pieces.tokensBefore(ignored.length + output.text.length, generated, model), ignored };
      }
      if (step.stopped) return output.end('', undefined, 'stopGenerationTrigger', step.matched);
      // As LlamaChat: text still held at the limit (a character's first bytes, a possible stop
      // string) is not part of the reply.
      if (input.maxTokens > 0 && generated.length >= input.maxTokens) return output.end('', undefined, 'maxTokens');
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
        : { punishTokens, maxPunishTokens: REPEAT_PENALTY_LAST_TOKENS, penalty: repeatPenalty.penalty },
    evaluationPriority: EVALUATION_PRIORITY,
    yieldEogToken: true,
  });
}

/** The reply's last tokens for the repeat penalty, newlines exempt (LlamaChat's `penalizeNewLine` default). */
function penaltyTokens(generated: readonly Token[], nl: Token | null): Token[] {
  const recent = generated.slice(-REPEAT_PENALTY_LAST_TOKENS);
  return nl == null ? recent : recent.filter((token) => token !== nl);
}

/**
 * Where each rendered piece of the reply's text ends, by tokens, so that the tokens before the
 * start of a call can be told apart: LlamaChat keeps those whole tokens and tokenizes again the
 * text of the one the call syntax begins in.
 */
class TextPieces {
  private readonly ends: { tokens: number; chars: number }[] = [];
  private all = '';

  add(piece: string, tokens: number): void {
    if (!piece) return;
    this.all += piece;
    this.ends.push({ tokens, chars: this.all.length });
  }

  tokensBefore(chars: number, generated: readonly Token[], model: LlamaModel): Token[] {
    let whole = { tokens: 0, chars: 0 };
    for (const end of this.ends) {
      if (end.chars > chars) break;
      whole = end;
    }
    const partial = this.all.slice(whole.chars, chars);
    return [...generated.slice(0, whole.tokens), ...(partial ? model.tokenize(partial, false, 'trimLeadingSpace') : [])];
  }
}

/**
 * The reply's final text as it is streamed. With a grammar that trims trailing whitespace
 * (node-llama-cpp's JSON grammars), whitespace is streamed only once text follows it.
 */
class ReplyText {
  text = '';
  private whitespace = '';

  constructor(
    private readonly trimWhitespaceSuffix: boolean,
    private readonly onText: (text: string) => void,
    private readonly start: StartText,
  ) {}

  add(release: string): void {
    this.emit(this.start.take(release));
  }

  /** Releases start text still held (the reply ends, or a call begins). */
  finish(): void {
    this.emit(this.start.flush());
  }

  get ignored(): string {
    return this.start.ignored;
  }

  private emit(release: string): void {
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
  end(rest: string, stops: StopDetector | undefined, stopReason: LoopStopReason, stopText?: string): WeftLoopResult {
    if (stops) {
      const step = stops.push(rest);
      this.add(step.release);
      if (step.stopped) {
        this.finish();
        return { text: this.text, stopReason: 'stopGenerationTrigger', ...(step.matched !== undefined ? { stopText: step.matched } : {}) };
      }
      this.add(stops.flush());
    }
    this.finish();
    return { text: this.text, stopReason, ...(stopText !== undefined ? { stopText } : {}) };
  }
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
