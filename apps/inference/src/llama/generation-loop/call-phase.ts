import type { ChatModelFunctions, LlamaText, Token } from 'node-llama-cpp';
import type { ChatWrapper, Llama, LlamaContextSequence, LlamaModel, NodeLlamaCpp } from '../llama-runtime';
import type { CallGrammars } from './call-grammars';
import type { GenerationDetector, LoopInternals } from './loop-internals';
import { alignSequence, throwIfAborted } from './sequence-steps';
import { TokenKinds } from './token-kinds';
import { generateTokens, type EvaluateOptions } from './token-steps';

type GrammarState = InstanceType<NodeLlamaCpp['LlamaGrammarEvaluationState']>;
type CallSettings = ChatWrapper['settings']['functions'];

/** A finished call: the function, its parsed arguments, and its text as the model sees it. */
export interface PhaseCall {
  functionName: string;
  params: unknown;
  raw: LlamaText;
}

/** A piece of a call's arguments as it is generated (LlamaChat's `onFunctionCallParamsChunk`). */
export interface CallChunk {
  callIndex: number;
  functionName: string;
  paramsChunk: string;
  done: boolean;
}

export interface CallPhaseInput {
  lib: Pick<NodeLlamaCpp, 'LlamaGrammarEvaluationState' | 'LlamaText' | 'SpecialToken' | 'jsonDumps'>;
  internals: LoopInternals;
  llama: Llama;
  model: LlamaModel;
  sequence: LlamaContextSequence;
  settings: CallSettings;
  functions: ChatModelFunctions;
  grammars: CallGrammars;
  /** The tokens before the call: the prompt, rendered again with the reply's text if it has any. */
  context: readonly Token[];
  /** Text the model wrote after the call syntax began, in the token that began it. */
  leftover: string;
  /** Tokens generated before the call, counted towards maxTokens. */
  generated: number;
  maxTokens: number;
  signal: AbortSignal;
  /** The sampling options of a new token generator, with this grammar state. */
  options: (grammar: GrammarState | undefined) => EvaluateOptions;
  onToken: () => void;
  onCallChunk: (chunk: CallChunk) => void;
}

export interface CallPhaseResult {
  calls: PhaseCall[];
  stopReason: 'functionCalls' | 'maxTokens';
}

/** Tokens of context the detokenizer gets (node-llama-cpp's `maxRecentDetokenizerTokens`). */
const DETOKENIZER_CONTEXT = 3;

/** Ends the phase early: maxTokens reached, with the calls finished so far. */
class MaxTokens extends Error {}

/**
 * Function calls as LlamaChat generates them, step for step, so that a seed gives the same calls:
 * the function's name under a grammar of the names, then its arguments under the grammar of its
 * parameters, each on a new token generator over the call's canonical text (what the model
 * wrote of the call syntax is replaced by the chat template's own, as LlamaChat does); with a
 * template that allows parallel calls, what follows a call decides whether another one comes.
 */
export async function runCallPhase(input: CallPhaseInput): Promise<CallPhaseResult> {
  const phase = new CallPhase(input);
  try {
    return { calls: await phase.run(), stopReason: 'functionCalls' };
  } catch (error) {
    if (error instanceof MaxTokens) return { calls: phase.calls, stopReason: 'maxTokens' };
    throw error;
  }
}

class CallPhase {
  readonly calls: PhaseCall[] = [];
  private generated: number;
  private leftover: string;

  constructor(private readonly input: CallPhaseInput) {
    this.generated = input.generated;
    this.leftover = input.leftover;
  }

  async run(): Promise<PhaseCall[]> {
    for (;;) {
      const { name, nameTokens } = await this.functionName();
      this.calls.push(await this.call(name, nameTokens));
      if (this.input.settings.parallelism == null) return this.calls;
      if (await this.sectionEnds()) return this.calls;
    }
  }

  private async functionName(): Promise<{ name: string; nameTokens: Token[] }> {
    const { internals, model, llama, lib } = this.input;
    const grammar = this.input.grammars.names(this.input.functions);
    const state = new lib.LlamaGrammarEvaluationState({ model, grammar });
    const done = this.detector(grammar.stopGenerationTriggers);
    const part: Token[] = [];
    const leftover = this.leftover;
    this.leftover = '';
    if (leftover !== '' && Object.keys(this.input.functions).some((name) => name.startsWith(leftover))) {
      const previous: Token[] = [];
      for (const token of model.tokenize(leftover, false, 'trimLeadingSpace')) {
        if (!internals.canBeNextToken(llama, state, token)) break;
        internals.acceptToken(llama, state, token);
        part.push(token);
        done.recordGeneration({ text: model.detokenize([token], false, previous), tokens: [token] });
        previous.push(token);
      }
    }
    const callTokens = [...this.callText(this.input.settings.call.prefix), ...part];
    for await (const { tokens, text } of this.generate(callTokens, state)) {
      part.push(...tokens);
      done.recordGeneration({ text, tokens });
      if (done.hasTriggeredStops) break;
      this.checkMaxTokens();
    }
    this.checkMaxTokens();
    return { name: grammar.parseFunctionName(model.detokenize(part)), nameTokens: part };
  }

  private async call(name: string, nameTokens: readonly Token[]): Promise<PhaseCall> {
    const { lib, internals, model, settings } = this.input;
    const paramsPrefix = internals.replaceRegularTextInLlamaText(settings.call.paramsPrefix, '{{functionName}}', name);
    const definition = this.input.functions[name];
    if (definition == null) throw new Error(`Function "${name}" is not provided in the functions object`);
    let params: unknown;
    let paramsText = '';
    if (definition.params == null) {
      const placeholder = settings.call.emptyCallParamsPlaceholder;
      if (placeholder !== undefined && placeholder !== '') {
        params = structuredClone(placeholder);
        paramsText = lib.jsonDumps(params);
      }
    } else {
      const grammar = this.input.grammars.params(this.input.functions, name, definition.params);
      const state = new lib.LlamaGrammarEvaluationState({ model, grammar });
      const done = this.detector(grammar.stopGenerationTriggers);
      const lastNameTokens = nameTokens.slice(-DETOKENIZER_CONTEXT);
      const part: Token[] = [];
      for await (const { tokens, text } of this.generate(this.callText(lib.LlamaText([settings.call.prefix, name, paramsPrefix])), state)) {
        done.recordGeneration({ text, tokens });
        const previous = [...lastNameTokens, ...part].slice(-DETOKENIZER_CONTEXT);
        this.input.onCallChunk({
          callIndex: this.calls.length,
          functionName: name,
          paramsChunk: model.detokenize(tokens, false, previous),
          done: done.hasTriggeredStops,
        });
        part.push(...tokens);
        if (done.hasTriggeredStops) break;
        this.checkMaxTokens();
      }
      this.checkMaxTokens();
      const parsed = grammar.parseParams(model.detokenize(part, false, lastNameTokens));
      params = parsed.params;
      paramsText = parsed.raw;
    }
    const suffix = internals.replaceRegularTextInLlamaText(settings.call.suffix, '{{functionName}}', name);
    return { functionName: name, params, raw: lib.LlamaText([settings.call.prefix, name, paramsPrefix, paramsText, suffix]) };
  }

  /**
   * After a call, with parallel calls: the model either closes the call section (its suffix, an
   * end-of-generation token, or the start of a result) or goes on to the next call.
   */
  private async sectionEnds(): Promise<boolean> {
    const { lib, model, settings } = this.input;
    const section = settings.parallelism?.call;
    const resultPrefix = settings.parallelism?.result?.sectionPrefix ?? '';
    const suffix = this.detector([section?.sectionSuffix ?? '', lib.LlamaText(new lib.SpecialToken('EOS')), lib.LlamaText(new lib.SpecialToken('EOT'))]);
    const resultStart = this.detector([
      lib.LlamaText([section?.sectionSuffix ?? '', resultPrefix]),
      lib.LlamaText([section?.sectionSuffix ?? '', resultPrefix, settings.result?.prefix ?? '']),
    ]);
    const part: Token[] = [];
    let first = true;
    for await (const { tokens, text } of this.generate(this.callText(lib.LlamaText([])), undefined)) {
      part.push(...tokens);
      suffix.recordGeneration({ text, tokens, startNewChecks: first, triggerMustStartWithGeneration: true });
      resultStart.recordGeneration({ text, tokens, startNewChecks: first, triggerMustStartWithGeneration: true });
      first = false;
      if (suffix.hasTriggeredStops || !suffix.hasInProgressStops) break;
      this.checkMaxTokens();
    }
    this.checkMaxTokens();
    const [only] = part;
    return (
      suffix.hasTriggeredStops ||
      (part.length === 1 && only !== undefined && TokenKinds.of(model).isEog(only)) ||
      resultStart.hasTriggeredStops ||
      resultStart.hasInProgressStops
    );
  }

  /** The call section so far as tokens: its prefix, the finished calls, then `current`. */
  private callText(current: unknown): Token[] {
    const { lib, settings, model } = this.input;
    const parts: unknown[] = [];
    const section = settings.parallelism?.call;
    if (section?.sectionPrefix != null) parts.push(section.sectionPrefix);
    this.calls.forEach((call, index) => {
      if (index > 0) parts.push(section?.betweenCalls ?? '');
      parts.push(call.raw);
    });
    parts.push(current);
    return lib.LlamaText(parts as Parameters<typeof lib.LlamaText>).tokenize(model.tokenizer, 'trimLeadingSpace');
  }

  private detector(triggers: Parameters<LoopInternals['StopGenerationDetector']['resolveStopTriggers']>[0]): GenerationDetector {
    const { StopGenerationDetector } = this.input.internals;
    const detector = new StopGenerationDetector();
    for (const trigger of StopGenerationDetector.resolveStopTriggers(triggers, this.input.model.tokenizer)) detector.addStopTrigger(trigger);
    return detector;
  }

  /**
   * A new token generator over the context and `callTokens`, as LlamaChat starts one for each
   * part of a call: the sequence keeps what it shares with them and evaluates the rest. Tokens
   * that end inside a character are held and given with the next one that completes it.
   */
  private async *generate(callTokens: readonly Token[], grammar: GrammarState | undefined): AsyncGenerator<{ tokens: Token[]; text: string }> {
    const { model, sequence, signal } = this.input;
    throwIfAborted(signal);
    const all = [...this.input.context, ...callTokens];
    const pending = await alignSequence(sequence, all);
    throwIfAborted(signal);
    const iterator = await generateTokens(sequence, pending, this.input.options(grammar));
    const kinds = TokenKinds.of(model);
    let trail = all.slice(-DETOKENIZER_CONTEXT);
    let partial: Token[] = [];
    try {
      for (;;) {
        const next = await iterator.next();
        throwIfAborted(signal);
        this.generated++;
        const tokens = next.done ? partial : [...partial, next.value];
        partial = [];
        if (tokens.length === 0) return;
        this.input.onToken();
        const text = model.detokenize(tokens, false, trail);
        // As LlamaChat: held for as long as the text ends inside a character, however many tokens.
        if (!next.done && text.endsWith('\uFFFD') && !kinds.isSpecial(next.value) && !kinds.isEog(next.value)) {
          partial = tokens;
          continue;
        }
        trail = [...trail, ...tokens].slice(-DETOKENIZER_CONTEXT);
        yield { tokens, text };
        if (next.done) return;
      }
    } finally {
      await iterator.return();
    }
  }

  private checkMaxTokens(): void {
    if (this.input.maxTokens > 0 && this.generated >= this.input.maxTokens) throw new MaxTokens();
  }
}
