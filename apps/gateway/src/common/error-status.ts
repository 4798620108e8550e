import { ErrorCode, assertUnreachable } from '@weft/contracts';

/** The one place where an error code becomes an HTTP status. */
export function statusForCode(code: ErrorCode): number {
  switch (code) {
    case ErrorCode.ValidationFailed:
    case ErrorCode.UnknownModel:
    case ErrorCode.ContextLengthExceeded:
    case ErrorCode.PathOutsideWorkspace:
    case ErrorCode.InvalidPath:
    case ErrorCode.NotAFile:
    case ErrorCode.BinaryFile:
    case ErrorCode.NotADirectory:
    case ErrorCode.ArchiveRejected:
    case ErrorCode.UnknownTool:
    case ErrorCode.InvalidToolArguments:
    case ErrorCode.InvalidRequest:
    case ErrorCode.ChainInvalid:
    case ErrorCode.NoModelForRole:
    case ErrorCode.SandboxImageUnknown:
    case ErrorCode.BackupInvalid:
    case ErrorCode.ScriptExhausted: // a conversation longer than a scripted (test) model's script
      return 400;
    case ErrorCode.Unauthorized:
      return 401;
    case ErrorCode.Forbidden:
    case ErrorCode.AdminRequired:
    case ErrorCode.PermissionDenied:
      return 403;
    case ErrorCode.NotFound:
    case ErrorCode.FileNotFound:
    case ErrorCode.WorkspaceNotFound:
      return 404;
    case ErrorCode.Conflict:
    case ErrorCode.LastAdmin:
    case ErrorCode.SandboxCancelled:
    case ErrorCode.TurnInProgress:
    case ErrorCode.GenerationCancelled:
    case ErrorCode.RestoreInProgress:
      return 409;
    case ErrorCode.PayloadTooLarge:
    case ErrorCode.FileTooLarge:
    case ErrorCode.WorkspaceQuotaExceeded:
    case ErrorCode.ModelTooLarge:
      return 413;
    case ErrorCode.ModelFileInvalid:
      return 422;
    case ErrorCode.QuotaExceeded:
      return 429;
    case ErrorCode.StoreUnavailable:
    case ErrorCode.StoreFull:
    case ErrorCode.StoreReadOnly:
    case ErrorCode.Timeout:
    case ErrorCode.NoResponders:
    case ErrorCode.SandboxUnavailable:
    case ErrorCode.ToolsUnavailable:
    case ErrorCode.SandboxTimeout:
    case ErrorCode.ModelLoadFailed:
    case ErrorCode.InferenceBusy:
    case ErrorCode.WorkerLost:
    case ErrorCode.ModelDownloadFailed:
      return 503;
    case ErrorCode.WorkspaceDiskFull:
    case ErrorCode.ModelsDiskFull:
    case ErrorCode.BackupDiskFull:
      return 507;
    case ErrorCode.ProviderFailed:
    case ErrorCode.McpToolFailed:
      return 502;
    case ErrorCode.Internal:
    case ErrorCode.GenerationFailed:
    case ErrorCode.ToolArgumentsInvalid:
    case ErrorCode.IterationLimit:
      return 500;
    default:
      return assertUnreachable(code);
  }
}

/** For errors that carry only a status (Nest's own, body-parser's). */
export function codeForStatus(status: number): ErrorCode {
  if (status === 401) return ErrorCode.Unauthorized;
  if (status === 403) return ErrorCode.Forbidden;
  if (status === 404) return ErrorCode.NotFound;
  if (status === 409) return ErrorCode.Conflict;
  if (status === 413) return ErrorCode.PayloadTooLarge;
  if (status === 429) return ErrorCode.QuotaExceeded;
  if (status >= 400 && status < 500) return ErrorCode.ValidationFailed;
  return ErrorCode.Internal;
}
