import { z } from 'zod';

/**
 * Every failure that crosses a process boundary carries one of these codes. They are strings
 * because `instanceof` does not survive NATS or HTTP.
 */
export const ErrorCode = {
  ValidationFailed: 'COMMON.VALIDATION_FAILED',
  NotFound: 'COMMON.NOT_FOUND',
  Conflict: 'COMMON.CONFLICT',
  PayloadTooLarge: 'COMMON.PAYLOAD_TOO_LARGE',
  Unauthorized: 'AUTH.UNAUTHORIZED',
  Forbidden: 'AUTH.FORBIDDEN',
  /** An admin route called with the key of a user whose role is `member`. */
  AdminRequired: 'AUTH.ADMIN_REQUIRED',
  /**
   * Refused because the gateway would be left with no admin credential: turning the bootstrap
   * token off with no enabled admin user, or demoting, disabling or deleting the last one while it is off.
   */
  LastAdmin: 'AUTH.LAST_ADMIN',
  Internal: 'COMMON.INTERNAL',
  /**
   * Weft's store (Redis) does not answer: the request was not served (one in flight when it
   * stopped may have taken effect). Details carry `retryAfterSeconds`.
   */
  StoreUnavailable: 'STORE.UNAVAILABLE',
  /** Redis is out of memory (`maxmemory` with `noeviction`): it refuses writes, reads work. Details carry `retryAfterSeconds`. */
  StoreFull: 'STORE.FULL',
  /** Redis cannot persist (its disk is full or failing: `MISCONF`) or is a read-only replica: it refuses writes, reads work. */
  StoreReadOnly: 'STORE.READ_ONLY',
  Timeout: 'TRANSPORT.TIMEOUT',
  NoResponders: 'TRANSPORT.NO_RESPONDERS',
  UnknownModel: 'INFERENCE.UNKNOWN_MODEL',
  ModelLoadFailed: 'INFERENCE.MODEL_LOAD_FAILED',
  GenerationFailed: 'INFERENCE.GENERATION_FAILED',
  ScriptExhausted: 'INFERENCE.SCRIPT_EXHAUSTED',
  ContextLengthExceeded: 'INFERENCE.CONTEXT_LENGTH_EXCEEDED',
  /** The worker's wait queue for the model is full, or it is draining: try another worker. */
  InferenceBusy: 'INFERENCE.BUSY',
  GenerationCancelled: 'INFERENCE.CANCELLED',
  /** The worker serving a generation stopped heartbeating mid-stream. */
  WorkerLost: 'INFERENCE.WORKER_LOST',
  ModelDownloadFailed: 'INFERENCE.MODEL_DOWNLOAD_FAILED',
  /**
   * A GGUF that Weft's bounded validator refuses (at pull, or before a load): details name the part
   * of the file (`field`) and the problem. Such a file is never handed to llama.cpp.
   */
  ModelFileInvalid: 'INFERENCE.MODEL_FILE_INVALID',
  /** A pull larger than its cap (`maxSizeBytes`, by default the models volume's free space less a margin). */
  ModelTooLarge: 'INFERENCE.MODEL_TOO_LARGE',
  /** The models volume is full (ENOSPC): the pull stopped and its partial file was deleted. */
  ModelsDiskFull: 'INFERENCE.MODELS_DISK_FULL',
  InvalidRequest: 'INFERENCE.INVALID_REQUEST',
  ToolArgumentsInvalid: 'INFERENCE.TOOL_ARGUMENTS_INVALID',
  ProviderFailed: 'INFERENCE.PROVIDER_FAILED',
  PathOutsideWorkspace: 'TOOLS.PATH_OUTSIDE_WORKSPACE',
  /**
   * A path no filesystem can hold: a NUL byte, a name over 255 bytes or a path over 4096 bytes.
   * Details name the problem (`problem`) and, for a long name, the name (`name`, shortened).
   */
  InvalidPath: 'TOOLS.INVALID_PATH',
  FileNotFound: 'TOOLS.FILE_NOT_FOUND',
  FileTooLarge: 'TOOLS.FILE_TOO_LARGE',
  NotAFile: 'TOOLS.NOT_A_FILE',
  BinaryFile: 'TOOLS.BINARY_FILE',
  NotADirectory: 'TOOLS.NOT_A_DIRECTORY',
  WorkspaceNotFound: 'TOOLS.WORKSPACE_NOT_FOUND',
  ArchiveRejected: 'TOOLS.ARCHIVE_REJECTED',
  /** Every tools worker that could have taken a call stopped heartbeating while it was in flight. */
  ToolsUnavailable: 'TOOLS.UNAVAILABLE',
  SandboxTimeout: 'SANDBOX.TIMEOUT',
  SandboxUnavailable: 'SANDBOX.UNAVAILABLE',
  /** A long run was cancelled: its container was killed, or it never started. */
  SandboxCancelled: 'SANDBOX.CANCELLED',
  /** An image id that the admin's catalogue (SANDBOX_IMAGES) does not hold. */
  SandboxImageUnknown: 'SANDBOX.IMAGE_UNKNOWN',
  /** An MCP server failed a tool call, or reported the call's result as an error; the turn goes on. */
  McpToolFailed: 'MCP.TOOL_FAILED',
  /** The user's workspaces hold more than WORKSPACE_QUOTA_BYTES: writes are refused until they shrink. */
  WorkspaceQuotaExceeded: 'WORKSPACE.QUOTA_EXCEEDED',
  /** The server's workspaces disk is full (ENOSPC, EDQUOT): the write was not made and nothing was changed. */
  WorkspaceDiskFull: 'WORKSPACE.DISK_FULL',
  /**
   * A per-user quota is used up (requests per minute, concurrent turns, tokens per day): details
   * name it (`quota`, `limit`, `used`, `retryAfterSeconds`).
   */
  QuotaExceeded: 'QUOTA.EXCEEDED',
  UnknownTool: 'AGENT.UNKNOWN_TOOL',
  InvalidToolArguments: 'AGENT.INVALID_TOOL_ARGUMENTS',
  IterationLimit: 'AGENT.ITERATION_LIMIT',
  TurnInProgress: 'AGENT.TURN_IN_PROGRESS',
  /** The permission policy or a person refused a tool call; the model reads this as the call's result. */
  PermissionDenied: 'AGENT.PERMISSION_DENIED',
  /** A chain file that does not parse or validate, or a run of it missing inputs. */
  ChainInvalid: 'AGENT.CHAIN_INVALID',
  /** A task for the junior model, or a delegation, with no model of that role being served. */
  NoModelForRole: 'AGENT.NO_MODEL_FOR_ROLE',
  /** Another restore (on any replica) is unpacking or loading its backup: one at a time. */
  RestoreInProgress: 'STORAGE.RESTORE_IN_PROGRESS',
  /** The body of a restore is not a Weft backup: not a tar.gz, cut short, or without its manifest. Details name the `problem`. */
  BackupInvalid: 'STORAGE.BACKUP_INVALID',
  /** The disk a backup is built or unpacked on (BACKUP_STAGING_DIR) is full: nothing was kept. */
  BackupDiskFull: 'STORAGE.BACKUP_DISK_FULL',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const errorCodes = Object.values(ErrorCode) as [ErrorCode, ...ErrorCode[]];

/** The shape of an error on the wire (NATS replies, HTTP bodies, job failures). */
export const wireErrorSchema = z.object({
  code: z.enum(errorCodes),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
  retryable: z.boolean().optional(),
});
export type WireError = z.infer<typeof wireErrorSchema>;

/** Base of every domain error in Weft: a string code, a retryable flag and an optional cause. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly retryable = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AppError';
  }

  toWire(): WireError {
    return { code: this.code, message: this.message, details: this.details, retryable: this.retryable };
  }

  static fromWire(wire: WireError): AppError {
    return new AppError(wire.code, wire.message, wire.details, wire.retryable ?? false);
  }
}

export function isWireError(value: unknown): value is WireError {
  return wireErrorSchema.safeParse(value).success;
}

/** For exhaustive switches: the compiler proves this is never reached. */
export function assertUnreachable(value: never): never {
  throw new Error(`Unreachable case: ${JSON.stringify(value)}`);
}
