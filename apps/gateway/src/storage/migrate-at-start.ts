import type { Logger } from '@weft/logging';
import type { Redis } from 'ioredis';
import { runMigrations } from './migration-runner';
import { MIGRATIONS } from './migrations';
import { RedisVersionStore } from './redis-version-store';

/** What the gateway runs while it is built: the store at this build's format, or StoreTooNewError. */
export async function migrateAtStart(redis: Redis, prefix: string, logger: Logger): Promise<number> {
  const report = await runMigrations(new RedisVersionStore(redis, prefix), redis, MIGRATIONS);
  if (report.applied.length > 0) logger.info(report, 'stored format migrated');
  return report.to;
}
