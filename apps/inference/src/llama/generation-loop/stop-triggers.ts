import type { ChatWrapper, LlamaModel } from '../llama-runtime';

type ContextState = ReturnType<ChatWrapper['generateContextState']>;
type LlamaText = ContextState['stopGenerationTriggers'][number];
type Token = ReturnType<LlamaModel['tokenize']>[number];
/** The trigger forms node-llama-cpp takes: a chat wrapper's LlamaTexts, a grammar's strings and token arrays. */
export type StopTrigger = LlamaText | string | readonly (string | Token)[];

/** Stop strings the reply's text is searched for, and stop token sequences. */
export interface StopTriggers {
  texts: string[];
  tokenSequences: number[][];
}

/**
 * The chat wrapper's and grammar's stop triggers, which are LlamaTexts: plain text is matched in
 * the reply's text; one with special tokens (`<|im_end|>`, EOT), which render to no text, is
 * matched as the tokens it tokenizes to.
 */
export function resolveStopTriggers(model: Pick<LlamaModel, 'tokenizer' | 'tokenize'>, triggers: readonly StopTrigger[], customStops: readonly string[] = []): StopTriggers {
  const resolved: StopTriggers = { texts: [...customStops], tokenSequences: [] };
  for (const trigger of triggers) {
    if (typeof trigger === 'string') resolved.texts.push(trigger);
    else if (isTokenArray(trigger)) {
      if (trigger.every((item) => typeof item === 'string')) resolved.texts.push(trigger.join(''));
      else resolved.tokenSequences.push(trigger.flatMap((item) => (typeof item === 'string' ? model.tokenize(item, false) : [item])));
    } else if (trigger.values.every((value) => typeof value === 'string')) resolved.texts.push(trigger.values.join(''));
    else resolved.tokenSequences.push(trigger.tokenize(model.tokenizer));
  }
  return resolved;
}

function isTokenArray(trigger: Exclude<StopTrigger, string>): trigger is readonly (string | Token)[] {
  return Array.isArray(trigger);
}

/**
 * Why Weft's loop cannot generate this reply as LlamaChat would, or undefined when it can. The loop
 * covers plain, JSON-schema and forced-call replies, and native function calls (`tools`: the
 * request offers functions); segments (thoughts), prefix triggers, a call the template opens but
 * may leave, and sequences that need checkpoints stay with LlamaChat (so does start text to
 * ignore that has special tokens: the caller checks, see StartText).
 */
export function weftLoopBlocker(state: ContextState, wrapper: ChatWrapper, needsCheckpoints: boolean, tools = false): string | undefined {
  if (needsCheckpoints) return 'the model needs sequence checkpoints';
  if (state.prefixTriggers?.length || state.noPrefixTrigger || state.rerender) return 'the chat template has prefix triggers';
  if (tools && state.functionCall?.initiallyEngaged && state.functionCall.disengageInitiallyEngaged.length > 0) {
    return 'the chat template opens the reply in a function call it may leave';
  }
  if (tools && !wrapper.settings.functions) return 'the chat template has no function call syntax';
  const segments = wrapper.settings.segments;
  if (segments && Object.entries(segments).some(([key, value]) => key !== 'closeAllSegments' && key !== 'reiterateStackAfterFunctionCalls' && value != null)) {
    return 'the chat template has segments';
  }
  return undefined;
}

/**
 * Where the template's call syntax begins in a reply (each section prefix with each call prefix,
 * as LlamaChat detects it), resolved for the model: text, or special tokens. A trigger that mixes
 * the two is matched by LlamaChat over both at once; the loop leaves those templates to it.
 */
export function resolveCallTriggers(
  settings: ChatWrapper['settings']['functions'],
  resolve: (text: LlamaText) => readonly (string | Token)[],
  LlamaTextOf: (values: readonly unknown[]) => LlamaText,
): StopTriggers | { unsupported: string } {
  const triggers: StopTriggers = { texts: [], tokenSequences: [] };
  const section = settings.parallelism?.call;
  for (const sectionPrefix of [section?.sectionPrefix ?? '', ...(section?.sectionPrefixAlternateMatches ?? [])]) {
    for (const prefix of [settings.call.prefix, ...(settings.call.prefixAlternateMatches ?? [])]) {
      const trigger = resolve(LlamaTextOf([sectionPrefix, prefix]));
      if (trigger.length === 0) continue;
      if (trigger.every((item) => typeof item === 'string')) triggers.texts.push(trigger.join(''));
      else if (trigger.every((item) => typeof item !== 'string')) triggers.tokenSequences.push([...trigger] as number[]);
      else return { unsupported: "the chat template's call syntax mixes special tokens and text" };
    }
  }
  return triggers;
}
