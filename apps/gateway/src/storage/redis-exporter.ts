import type { Redis } from 'ioredis';
import { type Bytes, encodeBytes, type ExportHeader, type RedisRecord } from './redis-records';
import { storageMigrationLockKey, storageRestoreLockKey, storageVersionKey } from './storage-keys';

const SCAN_COUNT = 500;

/** A stream's metadata as XINFO answers it: a flat list of names and values. */
function field(flat: unknown[], name: string): unknown {
  const at = flat.indexOf(name);
  return at < 0 ? undefined : flat[at + 1];
}

/**
 * Every key under a prefix, each read in one MULTI with its type and TTL, so each key is copied
 * as it was at one instant. Keys are not read at one common instant: what changes while the
 * export runs (between `startedAt` and `finishedAt`) may be in it or not.
 */
export async function exportRedis(redis: Redis, prefix: string): Promise<{ header: ExportHeader; records: RedisRecord[] }> {
  const startedAt = new Date().toISOString();
  const skip = new Set([storageMigrationLockKey(prefix), storageRestoreLockKey(prefix)]);
  const records: RedisRecord[] = [];
  const seen = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scanBuffer(cursor, 'MATCH', `${escapeGlob(prefix)}*`, 'COUNT', SCAN_COUNT);
    cursor = next.toString();
    for (const raw of keys) {
      const key = raw.toString('utf8');
      if (skip.has(key) || seen.has(key)) continue; // SCAN may return a key twice
      seen.add(key);
      const record = await readKey(redis, key, key.slice(prefix.length));
      if (record) records.push(record);
    }
  } while (cursor !== '0');
  records.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const version = await redis.get(storageVersionKey(prefix));
  const header: ExportHeader = {
    format: 'weft-redis-export',
    formatVersion: 1,
    storageVersion: version === null ? 0 : Number(version),
    prefix,
    startedAt,
    finishedAt: new Date().toISOString(),
    keys: records.length,
  };
  return { header, records };
}

/** One key's type, TTL and value at one instant; undefined for a key gone since SCAN saw it. */
async function readKey(redis: Redis, key: string, name: string): Promise<RedisRecord | undefined> {
  for (;;) {
    const type = await redis.type(key);
    const multi = redis.multi().type(key).pttl(key);
    switch (type) {
      case 'none':
        return undefined;
      case 'string':
        multi.getBuffer(key);
        break;
      case 'hash':
        multi.hgetallBuffer(key);
        break;
      case 'list':
        multi.lrangeBuffer(key, 0, -1);
        break;
      case 'set':
        multi.smembersBuffer(key);
        break;
      case 'zset':
        multi.zrangeBuffer(key, 0, -1, 'WITHSCORES');
        break;
      case 'stream':
        multi.xrange(key, '-', '+').call('XINFO', 'STREAM', key).call('XINFO', 'GROUPS', key);
        break;
      default:
        throw new Error(`key ${key} has type ${type}, which the export cannot copy`);
    }
    const results = (await multi.exec()) ?? [];
    const failed = results.find(([error]) => error);
    if (failed?.[0]) throw failed[0];
    const values = results.map(([, value]) => value);
    if (values[0] !== type) continue; // replaced by a key of another type between TYPE and MULTI
    const pttl = Number(values[1]);
    const ttl = pttl > 0 ? { ttlMs: pttl } : {};
    const value = values[2];
    switch (type) {
      case 'string':
        return { key: name, type, ...ttl, value: encodeBytes(value as Buffer) };
      case 'hash':
        return { key: name, type, ...ttl, value: Object.entries(value as Record<string, Buffer>).map(([f, v]): [Bytes, Bytes] => [f, encodeBytes(v)]) };
      case 'list':
        return { key: name, type, ...ttl, value: (value as Buffer[]).map(encodeBytes) };
      case 'set':
        return { key: name, type, ...ttl, value: (value as Buffer[]).map(encodeBytes).sort(byText) };
      case 'zset': {
        const flat = value as Buffer[];
        const pairs: Array<[Bytes, string]> = [];
        for (let i = 0; i < flat.length; i += 2) pairs.push([encodeBytes(flat[i] as Buffer), (flat[i + 1] as Buffer).toString()]);
        return { key: name, type, ...ttl, value: pairs };
      }
      case 'stream': {
        const info = values[3] as unknown[];
        const groups = (values[4] as unknown[][]).map((g) => ({ name: String(field(g, 'name')), lastDeliveredId: String(field(g, 'last-delivered-id')) }));
        const entries = value as Array<[string, string[]]>;
        return { key: name, type, ...ttl, value: { entries, lastId: String(field(info, 'last-generated-id')), groups } };
      }
    }
  }
}

const byText = (a: Bytes, b: Bytes) => {
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** A prefix is matched literally, even one holding glob characters. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
