import type { ChatModelFunctions } from 'node-llama-cpp';
import type { ChatWrapper, Llama } from '../llama-runtime';
import type { FunctionNameGrammar, FunctionParamsGrammar, LoopInternals } from './loop-internals';

type FunctionParams = NonNullable<ChatModelFunctions[string]['params']>;

/** Compiled call grammars kept per model: agents send the same tools turn after turn. */
const CACHE_SIZE = 64;

/**
 * The grammars of a call's name and of each function's arguments, compiled once per tool set
 * and schema instead of once a request (LlamaChat compiles them anew each time). A grammar is
 * only read while generating; each use has its own evaluation state.
 */
export class CallGrammars {
  private readonly cache = new Map<string, FunctionNameGrammar | FunctionParamsGrammar>();

  constructor(
    private readonly internals: LoopInternals,
    private readonly llama: Llama,
    private readonly wrapper: ChatWrapper,
  ) {}

  names(functions: ChatModelFunctions): FunctionNameGrammar {
    const key = `names\u0000${Object.keys(functions).join('\u0000')}`;
    return this.remember(key, () => new this.internals.FunctionCallNameGrammar(this.llama, functions, this.wrapper)) as FunctionNameGrammar;
  }

  params(functions: ChatModelFunctions, name: string, params: FunctionParams): FunctionParamsGrammar {
    // The function's name goes into the grammar's error messages, so it is part of the key.
    const key = `params\u0000${name}\u0000${JSON.stringify(params)}`;
    return this.remember(key, () => new this.internals.FunctionCallParamsGrammar(this.llama, functions, this.wrapper, name, params)) as FunctionParamsGrammar;
  }

  private remember(key: string, create: () => FunctionNameGrammar | FunctionParamsGrammar): FunctionNameGrammar | FunctionParamsGrammar {
    const grammar = this.cache.get(key) ?? create();
    this.cache.delete(key);
    this.cache.set(key, grammar);
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    return grammar;
  }
}
