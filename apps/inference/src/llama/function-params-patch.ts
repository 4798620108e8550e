import { importNodeLlamaCppInternal } from './node-llama-cpp-internals';

/** Where node-llama-cpp keeps the grammar that checks a function call's arguments. */
export const PARAMS_GRAMMAR_MODULE = 'evaluator/LlamaChat/utils/FunctionCallParamsGrammar.js';

interface FunctionCallParamsGrammarPrototype {
  _paramsSchema: unknown;
  parseParams(callText: string): unknown;
}

/** A JSON schema with every string's `maxLength` doubled, in a copy. */
export function inUtf16Units(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(inUtf16Units);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = inUtf16Units(value);
  if (typeof copy.maxLength === 'number') copy.maxLength = copy.maxLength * 2;
  return copy;
}

/**
 * node-llama-cpp's grammar caps a string argument at `maxLength` characters (code points), and
 * its check of a finished call counts UTF-16 units, so a call whose capped string holds an emoji
 * or another character beyond U+FFFF passes the grammar, then fails the check, and the whole
 * generation is lost (found by forcing native calls from the test model). The check gets the
 * schema with each cap doubled (a code point is at most two units); the grammar, built before,
 * keeps the real cap, and the arguments are validated again in code points after generation.
 * Returns false when the class is not where this version keeps it.
 */
export async function patchFunctionParamsLengthCheck(): Promise<boolean> {
  try {
    const module = await importNodeLlamaCppInternal<{ FunctionCallParamsGrammar?: { prototype: FunctionCallParamsGrammarPrototype } }>(
      PARAMS_GRAMMAR_MODULE,
    );
    const proto = module.FunctionCallParamsGrammar?.prototype;
    if (!proto || typeof proto.parseParams !== 'function') return false;
    if ((proto as { weftPatched?: boolean }).weftPatched) return true;
    const parseParams = proto.parseParams;
    proto.parseParams = function (this: FunctionCallParamsGrammarPrototype, callText: string) {
      const schema = this._paramsSchema;
      this._paramsSchema = inUtf16Units(schema);
      try {
        return parseParams.call(this, callText);
      } finally {
        this._paramsSchema = schema;
      }
    };
    (proto as { weftPatched?: boolean }).weftPatched = true;
    return true;
  } catch {
    return false;
  }
}
