/** Redis stream ids (`<ms>-<seq>`), the SSE ids of a session's log, in log order. */
export function compareStreamIds(a: string, b: string): number {
  const [aMs = 0n, aSeq = 0n] = a.split('-').map(toBigInt);
  const [bMs = 0n, bSeq = 0n] = b.split('-').map(toBigInt);
  if (aMs !== bMs) return aMs < bMs ? -1 : 1;
  if (aSeq !== bSeq) return aSeq < bSeq ? -1 : 1;
  return 0;
}

function toBigInt(part: string): bigint {
  return /^\d+$/.test(part) ? BigInt(part) : 0n;
}
