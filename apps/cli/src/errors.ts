/**
 * The CLI's failure modes. Each one knows how it reads to a user; `main` prints it once as
 * `error: <message> (<code>)` and exits 1.
 */
export abstract class CliError extends Error {
  abstract readonly code: string | undefined;
}

/** The gateway answered with `{ error: { code, message } }` (or a non-JSON error status). */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    /** From `Retry-After`, e.g. on a 429 `QUOTA.EXCEEDED`. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** An admin command's token was refused: the user's key hint would mislead here. */
export class AdminTokenRefusedError extends CliError {
  constructor(
    readonly code: string,
    reason: string,
  ) {
    super(`the gateway refused the admin token (${reason}): pass the bootstrap token or an admin user's key with --admin-token or in WEFT_ADMIN_TOKEN`);
    this.name = 'AdminTokenRefusedError';
  }
}

/** The gateway could not be reached at all: refused, unknown host, timed out. */
export class ConnectionError extends CliError {
  readonly code = undefined;

  constructor(
    readonly url: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot reach the Weft gateway at ${url}: ${reason}`, options);
    this.name = 'ConnectionError';
  }
}

export class NotLoggedInError extends CliError {
  readonly code = undefined;

  constructor() {
    super('not logged in: run `weft login --url <gateway> --key <key>` (or set WEFT_URL and WEFT_KEY)');
    this.name = 'NotLoggedInError';
  }
}

/** The gateway sent something this client does not understand. */
export class ProtocolError extends CliError {
  readonly code = undefined;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProtocolError';
  }
}

/** Bad local input: a missing folder, a conflicting pair of options. */
export class UsageError extends CliError {
  readonly code = undefined;

  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The command stopped before doing something the user would not want (nothing was changed). */
export class RefusedError extends CliError {
  readonly code = undefined;

  constructor(message: string) {
    super(message);
    this.name = 'RefusedError';
  }
}

/**
 * The agent asked a permission question where no one can answer it (`weft run` without a
 * terminal, or with `--json`, and without `--yes`); the turn is cancelled rather than left waiting.
 */
export class UnattendedPermissionError extends CliError {
  readonly code = undefined;

  constructor(tool: string, subject: string, why: string) {
    super(
      `the agent asks permission for ${tool}: ${subject}, and no one can answer here (${why}), so the turn was cancelled: ` +
        'pass --yes to allow what it asks, once each, or run it at a terminal to be asked',
    );
    this.name = 'UnattendedPermissionError';
  }
}

export function formatError(error: unknown): string {
  return `error: ${describeError(error)}${error instanceof ApiError ? hintFor(error) : ''}`;
}

/** The message and, for our own errors, the code: for a line that goes on after a failure. */
export function describeError(error: unknown): string {
  if (error instanceof CliError) return `${error.message}${error.code ? ` (${error.code})` : ''}`;
  return error instanceof Error ? error.message : String(error);
}

function hintFor(error: ApiError): string {
  if (error.status === 401) return '\nhint: check the key, or run `weft login` again';
  if (error.retryAfterSeconds !== undefined) return `\nhint: try again in ${error.retryAfterSeconds} s`;
  return '';
}
