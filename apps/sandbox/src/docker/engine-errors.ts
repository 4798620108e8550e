/** Socket-level failures: the engine is down or its socket is not where we were told. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE', 'EACCES', 'ETIMEDOUT', 'EHOSTUNREACH']);

export function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

export function isEngineUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return statusOf(error) === undefined && typeof code === 'string' && UNREACHABLE.has(code);
}

/** 404: already removed; 409: a removal is already under way. */
export function isGone(error: unknown): boolean {
  const status = statusOf(error);
  return status === 404 || status === 409;
}

/**
 * The engine refused a network's explicit subnet because another network holds part of it (it
 * says so only in words: "Pool overlaps with other one on this address space").
 */
export function isSubnetTaken(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && /pool overlaps/i.test(message);
}
