import type { GenerateResult } from '@weft/contracts';

export type Usage = GenerateResult['usage'];

/** Sums a generation's usage into the turn's; the cache counts only where the worker reports them. */
export function addUsage(total: Usage, usage: Usage): void {
  total.promptTokens += usage.promptTokens;
  total.completionTokens += usage.completionTokens;
  if (usage.cachedTokens !== undefined) total.cachedTokens = (total.cachedTokens ?? 0) + usage.cachedTokens;
  if (usage.evaluatedTokens !== undefined) total.evaluatedTokens = (total.evaluatedTokens ?? 0) + usage.evaluatedTokens;
}
