import type { Redis } from 'ioredis';
import type { Migration } from './migration';
import { StoreTooNewError } from './store-too-new';
import type { VersionStore } from './version-store';

/** How long a replica waits for another to finish migrating before it tries the lock again. */
export const MIGRATION_WAIT_MS = 120_000;

export interface MigrationReport {
  from: number;
  to: number;
  applied: string[];
}

/**
 * Brings the store to the last migration's version. One replica migrates under the lock; the
 * others wait for it and find nothing left to do. A store newer than `migrations` knows is refused
 * before anything is written.
 */
export async function runMigrations(store: VersionStore, redis: Redis, migrations: readonly Migration[]): Promise<MigrationReport> {
  assertOrdered(migrations);
  const known = migrations[migrations.length - 1]?.version ?? 0;
  for (;;) {
    const from = await store.version();
    if (from > known) throw new StoreTooNewError(from, known, `Redis (prefix "${store.prefix}")`);
    if (from === known) return { from, to: from, applied: [] };
    if (!(await store.tryLock())) {
      await store.lockReleased(MIGRATION_WAIT_MS);
      continue;
    }
    try {
      // Read again under the lock: another replica may have finished between the read and the lock.
      const current = await store.version();
      if (current > known) throw new StoreTooNewError(current, known, `Redis (prefix "${store.prefix}")`);
      const applied: string[] = [];
      for (const migration of migrations.filter((m) => m.version > current)) {
        await migration.up(redis, store.prefix);
        await store.setVersion(migration.version);
        applied.push(`${String(migration.version).padStart(4, '0')}-${migration.name}`);
      }
      return { from: current, to: known, applied };
    } finally {
      await store.unlock();
    }
  }
}

/** Versions must rise by one from 1: a gap or a duplicate is a programming error. */
function assertOrdered(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration ${m.name} has version ${m.version}, expected ${i + 1}`);
  });
}
