/** What the page shows when a call fails: the API's own code and message, or why none came. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** No answer at all: the gateway is down or the network is gone. */
export const NETWORK_ERROR = 'WEB.NETWORK';
/** An answer this client cannot read (a gateway of another version, a proxy's HTML page). */
export const UNEXPECTED_RESPONSE = 'WEB.UNEXPECTED_RESPONSE';

export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
