import { importNodeLlamaCppInternal } from './node-llama-cpp-internals';

/** Safe integers have at most 16 digits; 15 keeps every grammar-admitted one below 2^53. */
export const INTEGER_GBNF = '"-"? ("0" | [1-9] [0-9]{0,14})';
/** Two exponent digits at most, so a number never overflows to Infinity. */
export const NUMBER_GBNF = '"-"? ("0" | [1-9] [0-9]{0,15}) ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,2})?';

interface GbnfNumberPrototype {
  allowFractional: boolean;
  getGrammar(): string;
}

/**
 * node-llama-cpp's JSON grammar lets an `integer` carry an exponent (`5e-3`, `9e999`), and its own
 * check then throws away the whole generation. Its number terminal is not exported, so the
 * patch reaches it by file; every grammar built after this (function-call params, JSON-schema
 * replies) uses the tightened rules. Returns false when the file is not where this version keeps
 * it; the arguments are still validated after generation either way.
 */
export async function patchNumberGrammar(): Promise<boolean> {
  try {
    const module = await importNodeLlamaCppInternal<{ GbnfNumber?: { prototype: GbnfNumberPrototype } }>('utils/gbnfJson/terminals/GbnfNumber.js');
    const proto = module.GbnfNumber?.prototype;
    if (!proto || typeof proto.getGrammar !== 'function') return false;
    proto.getGrammar = function getGrammar(this: GbnfNumberPrototype) {
      return this.allowFractional ? NUMBER_GBNF : INTEGER_GBNF;
    };
    return true;
  } catch {
    return false;
  }
}
