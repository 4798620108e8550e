import { AppError, ErrorCode } from '@weft/contracts';

/**
 * The store (or a backup) holds a newer format than this build knows. An old binary must not
 * write it: it would store records in the old shape beside records in the new one.
 */
export class StoreTooNewError extends AppError {
  constructor(found: number, known: number, where: string) {
    super(
      ErrorCode.Conflict,
      `${where} holds stored format version ${found}, newer than this gateway knows (${known}): ` +
        'run a gateway of that release or later, or restore a backup taken with this one (docs/backup.md)',
      { storageVersion: found, knownVersion: known },
    );
  }
}
