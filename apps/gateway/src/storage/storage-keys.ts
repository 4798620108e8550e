/** The stored format's version and the lock of the replica migrating it; persisted names, do not rename. */
export const storageVersionKey = (prefix: string) => `${prefix}storage:version`;
export const storageMigrationLockKey = (prefix: string) => `${prefix}storage:migration-lock`;
