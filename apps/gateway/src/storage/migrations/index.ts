import type { Migration } from '../migration';
import { stampVersion } from './0001-stamp-version';

/** Every migration, in order; a new one is appended with the next version (docs/backup.md). */
export const MIGRATIONS: readonly Migration[] = [stampVersion];

/** The stored format this build writes: the last migration's version. */
export const STORAGE_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
