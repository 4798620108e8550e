import { AppError, ErrorCode } from '@weft/contracts';

/**
 * What a client is told to wait before retrying a write Redis refused. Longer than for an outage:
 * someone has to free memory or disk first (Redis takes writes again within a second of that).
 */
export const STORE_REFUSAL_RETRY_AFTER_S = 30;

const details = { retryAfterSeconds: STORE_REFUSAL_RETRY_AFTER_S };

/**
 * Redis's refusals to write, by the code word its error replies start with. Each leaves reads
 * working and what is stored intact, and none needs a restart to clear.
 */
const REFUSALS: Record<string, () => AppError> = {
  // `maxmemory` reached under `noeviction` (compose's setting): commands that would grow memory are refused.
  OOM: () => new AppError(ErrorCode.StoreFull, "Weft's store (Redis) is out of memory and refuses changes; reads still work. Try again later", details, true),
  // `MISCONF`: the AOF cannot be written or the last RDB save failed, most often a full disk.
  MISCONF: () => new AppError(ErrorCode.StoreReadOnly, "Weft's store (Redis) cannot save to its disk and refuses changes; reads still work. Try again later", details, true),
  READONLY: () => new AppError(ErrorCode.StoreReadOnly, "Weft's store (Redis) is a read-only replica and refuses changes; reads still work. Try again later", details, true),
};

/**
 * The typed error for a write Redis refused (STORE.FULL, STORE.READ_ONLY), undefined for any
 * other error. A transaction refused as a whole (`EXECABORT`) names its cause in ioredis's
 * `previousErrors`; a wrapped error in its `cause`.
 */
export function storeRefusal(error: unknown, depth = 0): AppError | undefined {
  if (!(error instanceof Error) || depth > 4) return undefined;
  // ioredis types ReplyError as `any`: its name is what it reliably carries.
  if (error.name === 'ReplyError') {
    const refusal = REFUSALS[error.message.split(' ', 1)[0] ?? ''];
    if (refusal) return refusal();
    for (const previous of (error as Error & { previousErrors?: unknown[] }).previousErrors ?? []) {
      const found = storeRefusal(previous, depth + 1);
      if (found) return found;
    }
  }
  return storeRefusal(error.cause, depth + 1);
}
