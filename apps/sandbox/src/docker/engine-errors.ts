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
