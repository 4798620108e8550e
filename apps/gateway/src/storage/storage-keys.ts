/** The stored format's version, the lock of the replica migrating it and of the one restoring a backup; persisted names, do not rename. */
export const storageVersionKey = (prefix: string) => `${prefix}storage:version`;
export const storageMigrationLockKey = (prefix: string) => `${prefix}storage:migration-lock`;
export const storageRestoreLockKey = (prefix: string) => `${prefix}storage:restore-lock`;
