import { InvalidArgumentError } from 'commander';

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3, t: 1024 ** 4, tb: 1024 ** 4, tib: 1024 ** 4 };

/** `8G`, `500MiB`, `1.5g` or a plain byte count, as bytes (units are powers of 1024). */
export function parseByteSize(value: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = match ? UNITS[(match[2] ?? '').toLowerCase()] : undefined;
  const bytes = match && unit !== undefined ? Math.floor(Number(match[1]) * unit) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new InvalidArgumentError(`"${value}" is not a size: give bytes, or a number with K, M, G or T (powers of 1024), e.g. 8G`);
  return bytes;
}
