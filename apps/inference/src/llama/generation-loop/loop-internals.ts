import type { ChatModelFunctions, LlamaText, Token, Tokenizer } from 'node-llama-cpp';
import type { ChatWrapper, Llama, NodeLlamaCpp } from '../llama-runtime';
import { importNodeLlamaCppInternal } from '../node-llama-cpp-internals';

type LlamaGrammar = InstanceType<NodeLlamaCpp['LlamaGrammar']>;
type GrammarState = InstanceType<NodeLlamaCpp['LlamaGrammarEvaluationState']>;
type FunctionParams = NonNullable<ChatModelFunctions[string]['params']>;
/** A stop trigger as node-llama-cpp resolves one: text and tokens in order. */
export type ResolvedTrigger = (string | Token)[];

/** node-llama-cpp's detector of stop triggers over text and tokens (LlamaChat's own). */
export interface GenerationDetector {
  recordGeneration(options: { text: string; tokens: Token[]; startNewChecks?: boolean; triggerMustStartWithGeneration?: boolean }): void;
  addStopTrigger(trigger: ResolvedTrigger): GenerationDetector;
  readonly hasTriggeredStops: boolean;
  readonly hasInProgressStops: boolean;
  getTriggeredStops(): { stopTrigger: ResolvedTrigger }[];
}

export interface FunctionNameGrammar extends LlamaGrammar {
  parseFunctionName(text: string): string;
}

export interface FunctionParamsGrammar extends LlamaGrammar {
  parseParams(text: string): { params: unknown; raw: string };
}

/**
 * The parts of node-llama-cpp that LlamaChat's function calling is built from and the package
 * does not export: the grammars of a call's name and arguments (with the worker's patches to
 * them, as they are the same module instances), the stop detector, and the sampler's grammar
 * steps. Weft's loop uses them as they are rather than copies that could drift.
 */
export interface LoopInternals {
  StopGenerationDetector: (new () => GenerationDetector) & {
    resolveStopTriggers(triggers: readonly (string | LlamaText | readonly (string | Token)[])[], tokenizer: Tokenizer): ResolvedTrigger[];
    resolveLlamaTextTrigger(text: LlamaText, tokenizer: Tokenizer): ResolvedTrigger;
  };
  FunctionCallNameGrammar: new (llama: Llama, functions: ChatModelFunctions, wrapper: ChatWrapper) => FunctionNameGrammar;
  FunctionCallParamsGrammar: new (llama: Llama, functions: ChatModelFunctions, wrapper: ChatWrapper, name: string, params: FunctionParams) => FunctionParamsGrammar;
  /** Whether the grammar admits this token next, and accepting it (LlamaSampler's statics). */
  canBeNextToken(llama: Llama, state: GrammarState, token: Token): boolean;
  acceptToken(llama: Llama, state: GrammarState, token: Token): void;
  replaceRegularTextInLlamaText(text: unknown, find: string, replace: string): LlamaText;
}

interface SamplerStatics {
  _canBeNextTokenForGrammarEvaluationState(llama: Llama, state: GrammarState, token: Token): boolean;
  _acceptTokenOnGrammarEvaluationState(llama: Llama, state: GrammarState, token: Token): void;
}

let loaded: Promise<LoopInternals> | undefined;

/** Loads the internals once; fails with the path that moved when node-llama-cpp changes. */
export function loopInternals(): Promise<LoopInternals> {
  loaded ??= load().catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  return loaded;
}

async function load(): Promise<LoopInternals> {
  const [detector, names, params, sampler, replace] = await Promise.all([
    importInternal<{ StopGenerationDetector: LoopInternals['StopGenerationDetector'] }>('utils/StopGenerationDetector.js', 'StopGenerationDetector'),
    importInternal<{ FunctionCallNameGrammar: LoopInternals['FunctionCallNameGrammar'] }>('evaluator/LlamaChat/utils/FunctionCallNameGrammar.js', 'FunctionCallNameGrammar'),
    importInternal<{ FunctionCallParamsGrammar: LoopInternals['FunctionCallParamsGrammar'] }>('evaluator/LlamaChat/utils/FunctionCallParamsGrammar.js', 'FunctionCallParamsGrammar'),
    importInternal<{ LlamaSampler: SamplerStatics }>('evaluator/LlamaContext/LlamaSampler.js', 'LlamaSampler'),
    importInternal<{ replaceRegularTextInLlamaText: LoopInternals['replaceRegularTextInLlamaText'] }>(
      'chatWrappers/utils/replaceRegularTextInLlamaText.js',
      'replaceRegularTextInLlamaText',
    ),
  ]);
  const { LlamaSampler } = sampler;
  if (typeof LlamaSampler._canBeNextTokenForGrammarEvaluationState !== 'function' || typeof LlamaSampler._acceptTokenOnGrammarEvaluationState !== 'function') {
    throw new Error("node-llama-cpp's LlamaSampler has no grammar token statics any more");
  }
  return {
    StopGenerationDetector: detector.StopGenerationDetector,
    FunctionCallNameGrammar: names.FunctionCallNameGrammar,
    FunctionCallParamsGrammar: params.FunctionCallParamsGrammar,
    canBeNextToken: (llama, state, token) => LlamaSampler._canBeNextTokenForGrammarEvaluationState(llama, state, token),
    acceptToken: (llama, state, token) => LlamaSampler._acceptTokenOnGrammarEvaluationState(llama, state, token),
    replaceRegularTextInLlamaText: replace.replaceRegularTextInLlamaText,
  };
}

async function importInternal<T extends object>(path: string, name: keyof T & string): Promise<T> {
  const module = await importNodeLlamaCppInternal<T>(path);
  if (!(name in module) || module[name] == null) throw new Error(`node-llama-cpp has no ${name} in dist/${path} any more`);
  return module;
}

