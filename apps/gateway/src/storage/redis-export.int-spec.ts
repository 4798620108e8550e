import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedService, startRedis } from '../../../../test/support/containers';
import { exportRedis } from './redis-exporter';
import { importRedis } from './redis-importer';

let server: StartedService;
let redis: Redis;
const freshPrefix = () => `export-${randomBytes(4).toString('hex')}:`;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
});

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

describe('Redis export and import', () => {
  it('copies every type, binary values, TTLs and stream groups to another prefix exactly', async () => {
    const from = freshPrefix();
    const binary = Buffer.from([0xff, 0x00, 0xfe]);
    await redis.set(`${from}s`, 'text');
    await redis.set(`${from}bin`, binary);
    await redis.set(`${from}ttl`, 'soon', 'PX', 600_000);
    await redis.hset(`${from}h`, 'a', '1', 'b', binary);
    await redis.rpush(`${from}l`, 'x', 'y', 'x');
    await redis.sadd(`${from}set`, 'm', 'n');
    await redis.zadd(`${from}z`, 1.5, 'one', -2, 'two');
    await redis.xadd(`${from}events`, '5-0', 'type', 'turn.started');
    await redis.xadd(`${from}events`, '7-0', 'type', 'turn.completed');
    await redis.xadd(`${from}events`, '9-0', 'type', 'dropped');
    await redis.xdel(`${from}events`, '9-0');
    await redis.xgroup('CREATE', `${from}events`, 'readers', '5-0');
    await redis.set(`${from}storage:migration-lock`, 'held');
    await redis.set('elsewhere:s', 'not ours');

    const first = await exportRedis(redis, from);
    expect(first.records.map((r) => r.key)).toEqual(['bin', 'events', 'h', 'l', 's', 'set', 'ttl', 'z']);
    expect(first.header).toMatchObject({ format: 'weft-redis-export', prefix: from, keys: 8, storageVersion: 0 });

    const to = freshPrefix();
    await importRedis(redis, to, first.records);
    expect(await redis.getBuffer(`${to}bin`)).toEqual(binary);
    expect(await redis.hgetBuffer(`${to}h`, 'b')).toEqual(binary);
    expect(await redis.lrange(`${to}l`, 0, -1)).toEqual(['x', 'y', 'x']);
    expect(await redis.zrange(`${to}z`, 0, -1, 'WITHSCORES')).toEqual(['two', '-2', 'one', '1.5']);
    expect(Number(await redis.pttl(`${to}ttl`))).toBeGreaterThan(500_000);
    expect(await redis.pttl(`${to}s`)).toBe(-1);
    // The stream goes on past the deleted entry's id, and the group reads from where it was.
    expect(await redis.xadd(`${to}events`, '8-0', 'type', 'late').catch((e: Error) => e.message)).toContain('equal or smaller');
    const groups = (await redis.xinfo('GROUPS', `${to}events`)) as unknown[][];
    expect(groups[0]).toEqual(expect.arrayContaining(['readers', 'last-delivered-id', '5-0']));

    const again = await exportRedis(redis, to);
    const withoutTtl = (records: typeof first.records) => records.map(({ ttlMs: _ttl, ...rest }) => rest);
    expect(withoutTtl(again.records)).toEqual(withoutTtl(first.records));
  });
});
