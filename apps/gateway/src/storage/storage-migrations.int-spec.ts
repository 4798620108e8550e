import { randomBytes } from 'node:crypto';
import { Module } from '@nestjs/common';
import { createLogger } from '@weft/logging';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedService, startRedis } from '../../../../test/support/containers';
import { startGatewayUnderTest } from '../test/gateway-under-test';
import type { Migration } from './migration';
import { migrateAtStart } from './migrate-at-start';
import { runMigrations } from './migration-runner';
import { MIGRATIONS, STORAGE_VERSION } from './migrations';
import { RedisVersionStore } from './redis-version-store';
import { storageVersionKey } from './storage-keys';

/** The stored format's version on real Redis: one migrating replica, stamping at start, refusing a newer store. */
let redisServer: StartedService;
let redis: Redis;

/** The gateway alone: the stamp needs no worker. */
@Module({})
class NoWorkers {}

const freshPrefix = () => `storage-${randomBytes(4).toString('hex')}:`;

beforeAll(async () => {
  redisServer = await startRedis();
  redis = new Redis(redisServer.url);
});

afterAll(async () => {
  redis?.disconnect();
  await redisServer?.stop();
});

describe('stored format version', () => {
  it('is migrated by one of several replicas starting at once, each migration once', async () => {
    const prefix = freshPrefix();
    const counting: Migration = {
      version: 2,
      name: 'count',
      up: async (r, p) => {
        await r.incr(`${p}count-runs`);
      },
    };
    const replicas = Array.from({ length: 4 }, () => new Redis(redisServer.url));
    const reports = await Promise.all(replicas.map((r) => runMigrations(new RedisVersionStore(r, prefix), r, [...MIGRATIONS, counting])));
    for (const r of replicas) r.disconnect();
    expect(await redis.get(`${prefix}count-runs`)).toBe('1');
    expect(await redis.get(storageVersionKey(prefix))).toBe('2');
    expect(reports.filter((r) => r.applied.length > 0)).toHaveLength(1);
  });

  it('stamps an unversioned store when a gateway starts, keeping what it held', async () => {
    const prefix = freshPrefix();
    await redis.set(`${prefix}users-marker`, 'kept');
    const gateway = await startGatewayUnderTest(NoWorkers, { REDIS_URL: redisServer.url, REDIS_KEY_PREFIX: prefix });
    await gateway.stop();
    expect(await redis.get(storageVersionKey(prefix))).toBe(String(STORAGE_VERSION));
    expect(await redis.get(`${prefix}users-marker`)).toBe('kept');
  });

  // What the gateway's StorageModule runs while Nest builds it (a failed build aborts the process,
  // and in a test would leave the half-built gateway's connections behind, so it is called alone).
  it('refuses a store of a newer format at start, and leaves the store alone', async () => {
    const prefix = freshPrefix();
    await redis.set(storageVersionKey(prefix), String(STORAGE_VERSION + 1));
    await expect(migrateAtStart(redis, prefix, createLogger('gateway', 'silent'))).rejects.toThrow(
      `Redis (prefix "${prefix}") holds stored format version ${STORAGE_VERSION + 1}, newer than this gateway knows (${STORAGE_VERSION})`,
    );
    expect(await redis.keys(`${prefix}*`)).toEqual([storageVersionKey(prefix)]);
  });
});
