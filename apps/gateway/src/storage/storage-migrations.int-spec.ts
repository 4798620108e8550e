import { randomBytes } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from '@weft/config';
import { createLogger } from '@weft/logging';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedService, startNats, startRedis } from '../../../../test/support/containers';
import { gatewaySettingsSchema } from '../config';
import { AppModule } from '../app.module';
import type { Migration } from './migration';
import { runMigrations } from './migration-runner';
import { MIGRATIONS, STORAGE_VERSION } from './migrations';
import { RedisVersionStore } from './redis-version-store';
import { storageVersionKey } from './storage-keys';

/** The stored format's version on real Redis: one migrating replica, stamping at start, refusing a newer store. */
let redisServer: StartedService;
let nats: StartedService;
let redis: Redis;
const freshPrefix = () => `storage-${randomBytes(4).toString('hex')}:`;

/** The gateway's modules, built as main.ts builds them, but failing with a rejection instead of Nest's abort(). */
function gatewayOn(prefix: string) {
  const config = loadConfig(gatewaySettingsSchema, {
    REDIS_URL: redisServer.url,
    NATS_URL: nats.url,
    WEFT_ADMIN_TOKEN: 'admin-token-for-tests-0123456789',
    REDIS_KEY_PREFIX: prefix,
    LOG_LEVEL: 'silent',
  });
  return NestFactory.create(AppModule.forRoot(config, createLogger('gateway', 'silent')), { abortOnError: false, logger: false });
}

beforeAll(async () => {
  [redisServer, nats] = await Promise.all([startRedis(), startNats()]);
  redis = new Redis(redisServer.url);
});

afterAll(async () => {
  redis?.disconnect();
  await Promise.all([redisServer?.stop(), nats?.stop()]);
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
    const app = await gatewayOn(prefix);
    await app.close();
    expect(await redis.get(storageVersionKey(prefix))).toBe(String(STORAGE_VERSION));
    expect(await redis.get(`${prefix}users-marker`)).toBe('kept');
  });

  it('refuses to start a gateway on a store of a newer format, and leaves the store alone', async () => {
    const prefix = freshPrefix();
    await redis.set(storageVersionKey(prefix), String(STORAGE_VERSION + 1));
    await expect(gatewayOn(prefix)).rejects.toThrow(`holds stored format version ${STORAGE_VERSION + 1}, newer than this gateway knows (${STORAGE_VERSION})`);
    // BullMQ's Queue constructor writes its own `meta` key while providers are built; no Weft record is written.
    const weftKeys = (await redis.keys(`${prefix}*`)).filter((key) => !key.startsWith(`${prefix}bull:`));
    expect(weftKeys).toEqual([storageVersionKey(prefix)]);
  });
});
