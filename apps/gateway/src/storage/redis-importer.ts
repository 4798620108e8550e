import type { ChainableCommander, Redis } from 'ioredis';
import { decodeBytes, type RedisRecord } from './redis-records';

/** Records written per MULTI: one round trip for many small keys, no huge transaction. */
const BATCH = 200;

/**
 * Writes exported records under `prefix`, each key replaced whole in one MULTI. A TTL restarts
 * from the import: a key had `ttlMs` left when it was exported and has that long again.
 */
export async function importRedis(redis: Redis, prefix: string, records: readonly RedisRecord[]): Promise<void> {
  for (let i = 0; i < records.length; i += BATCH) {
    const multi = redis.multi();
    for (const record of records.slice(i, i + BATCH)) writeRecord(multi, `${prefix}${record.key}`, record);
    const results = (await multi.exec()) ?? [];
    const failed = results.find(([error]) => error);
    if (failed?.[0]) throw failed[0];
  }
}

function writeRecord(multi: ChainableCommander, key: string, record: RedisRecord): void {
  multi.del(key);
  switch (record.type) {
    case 'string':
      multi.set(key, decodeBytes(record.value));
      break;
    case 'hash':
      if (record.value.length > 0) multi.hset(key, ...record.value.flatMap(([f, v]) => [decodeBytes(f), decodeBytes(v)]));
      break;
    case 'list':
      if (record.value.length > 0) multi.rpush(key, ...record.value.map(decodeBytes));
      break;
    case 'set':
      if (record.value.length > 0) multi.sadd(key, ...record.value.map(decodeBytes));
      break;
    case 'zset':
      if (record.value.length > 0) multi.zadd(key, ...record.value.flatMap(([m, s]) => [s, decodeBytes(m)]));
      break;
    case 'stream': {
      const { entries, lastId, groups } = record.value;
      for (const [id, fields] of entries) multi.xadd(key, id, ...fields);
      // An empty stream exists only through a group; one with neither carries nothing to keep.
      if (entries.length === 0 && groups.length === 0) return;
      if (entries.length === 0) multi.call('XGROUP', 'CREATE', key, groups[0]?.name ?? '', '0', 'MKSTREAM');
      // New entries keep counting past ids that were trimmed or deleted before the export.
      if (lastId !== '0-0') multi.call('XSETID', key, lastId);
      for (const [index, group] of groups.entries()) {
        if (entries.length === 0 && index === 0) multi.call('XGROUP', 'SETID', key, group.name, group.lastDeliveredId);
        else multi.call('XGROUP', 'CREATE', key, group.name, group.lastDeliveredId);
      }
      break;
    }
  }
  if (record.ttlMs !== undefined) multi.pexpire(key, record.ttlMs);
}
