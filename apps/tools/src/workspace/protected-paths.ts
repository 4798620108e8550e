import { AppError, ErrorCode } from '@weft/contracts';
import { relativeName } from './path-containment';

/**
 * Weft keeps a workspace's own settings (permission rules, notes) under `.weft/` at its root.
 * Tools may read them but never create, change, move or delete them: a model must not be able
 * to grant itself permissions. `WEFT.md` (project instructions) stays editable on purpose; it is
 * ordinary project content that reaches the user through the export patch.
 */
export const PROTECTED_FOLDER = '.weft';

/** True when `real` (a resolved path under `root`) is `.weft` or lies under it. */
export function isProtected(root: string, real: string): boolean {
  const first = relativeName(root, real).split('/')[0];
  return first === PROTECTED_FOLDER;
}

export function assertWritable(root: string, real: string, requested: string): void {
  if (isProtected(root, real)) {
    throw new AppError(
      ErrorCode.Forbidden,
      `'${requested}' is in ${PROTECTED_FOLDER}/, which holds Weft's own settings; tools cannot change it`,
    );
  }
}
