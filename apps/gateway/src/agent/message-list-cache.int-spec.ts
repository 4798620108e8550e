import { randomBytes } from 'node:crypto';
import type { ChatMessage } from '@weft/contracts';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type StartedService } from '../../../../test/support/containers';
import { MessageListCache } from './message-list-cache';

describe('MessageListCache on real Redis', () => {
  let service: StartedService;
  let redis: Redis;
  let commands: string[];

  beforeAll(async () => {
    service = await startRedis();
    redis = new Redis(service.url);
    commands = [];
    // Every LRANGE the cache sends, with its range, to show what it reads.
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = (command) => {
      if (command.name === 'lrange') commands.push((command.args as string[]).slice(1).join(' '));
      return send(command);
    };
  });

  afterAll(async () => {
    redis?.disconnect();
    await service?.stop();
  });

  const key = () => `test:${randomBytes(4).toString('hex')}:messages`;
  const user = (content: string): ChatMessage => ({ role: 'user', content });
  const push = (k: string, ...messages: ChatMessage[]) => redis.rpush(k, ...messages.map((m) => JSON.stringify(m)));

  it('reads a list whole once, then only what was appended since', async () => {
    const k = key();
    const cache = new MessageListCache(redis);
    await push(k, user('a'), user('b'));
    commands.length = 0;
    expect(await cache.read(k)).toEqual([user('a'), user('b')]);
    await push(k, user('c'));
    expect(await cache.read(k)).toEqual([user('a'), user('b'), user('c')]);
    expect(await cache.read(k)).toEqual([user('a'), user('b'), user('c')]);
    expect(commands).toEqual(['0 -1', '1 -1', '2 -1']);
  });

  it('sees appends made through another connection (another replica)', async () => {
    const k = key();
    const cache = new MessageListCache(redis);
    await push(k, user('a'));
    await cache.read(k);
    const other = new Redis(service.url);
    await other.rpush(k, JSON.stringify(user('from elsewhere')));
    other.disconnect();
    expect(await cache.read(k)).toEqual([user('a'), user('from elsewhere')]);
  });

  it('reads a deleted or rebuilt list whole, never a stale copy', async () => {
    const k = key();
    const cache = new MessageListCache(redis);
    await push(k, user('a'), user('b'));
    await cache.read(k);
    await redis.del(k);
    expect(await cache.read(k)).toEqual([]);
    await push(k, user('x'), user('y'), user('z'));
    expect(await cache.read(k)).toEqual([user('x'), user('y'), user('z')]);
  });

  it('a caller changing the array it got does not change the cache', async () => {
    const k = key();
    const cache = new MessageListCache(redis);
    await push(k, user('a'));
    const first = await cache.read(k);
    first.push(user('not stored'));
    expect(await cache.read(k)).toEqual([user('a')]);
  });

  it('keeps at most its capacity of lists, dropping the least recently read', async () => {
    const cache = new MessageListCache(redis, 2);
    const [k1, k2, k3] = [key(), key(), key()];
    for (const k of [k1, k2, k3]) await push(k, user(k), user('second'));
    await cache.read(k1);
    await cache.read(k2);
    await cache.read(k1);
    await cache.read(k3);
    expect(cache.size).toBe(2);
    commands.length = 0;
    await cache.read(k1);
    await cache.read(k2);
    // k1 was kept (read from its last entry), k2 dropped for k3 (read whole).
    expect(commands).toEqual(['1 -1', '0 -1']);
  });
});
