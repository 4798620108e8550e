import { cp, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Redis } from 'ioredis';
import { importRedis } from '../../apps/gateway/src/storage/redis-importer';
import { fromJsonl } from '../../apps/gateway/src/storage/redis-jsonl';
import type { FixtureFacts } from '../../scripts/stored-data/fixture-facts';

export const storedDataFixture = (version: number) => resolve(__dirname, `../fixtures/stored-data/v${version}`);

/** Writes a committed fixture's keys under `prefix` and its workspaces into `workspacesDir`, as a store left by that version. */
export async function loadStoredData(dir: string, redis: Redis, prefix: string, workspacesDir: string): Promise<FixtureFacts> {
  const { records } = fromJsonl(await readFile(join(dir, 'redis.jsonl'), 'utf8'));
  await importRedis(redis, prefix, records);
  await cp(join(dir, 'workspaces'), workspacesDir, { recursive: true });
  return JSON.parse(await readFile(join(dir, 'facts.json'), 'utf8')) as FixtureFacts;
}
