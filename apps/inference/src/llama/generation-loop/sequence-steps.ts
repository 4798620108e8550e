import type { LlamaContextSequence, LlamaModel } from '../llama-runtime';

type Token = ReturnType<LlamaModel['tokenize']>[number];

/**
 * Trims the sequence to the longest prefix it shares with `tokens`, as LlamaChat does, and
 * returns the tokens still to evaluate: at least the last one, whose logits give the next token.
 */
export async function alignSequence(sequence: LlamaContextSequence, tokens: readonly Token[]): Promise<readonly Token[]> {
  if (tokens.length === 0) throw new Error('the prompt has no tokens');
  if (tokens.length === 1 && sequence.nextTokenIndex !== 0) {
    await sequence.eraseContextTokenRanges([{ start: 0, end: sequence.nextTokenIndex }]);
    return tokens;
  }
  await sequence.adaptStateToTokens(tokens.slice(0, -1), false);
  return tokens.slice(sequence.nextTokenIndex);
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
}
