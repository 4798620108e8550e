import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { storageMigrationLockKey, storageVersionKey } from './storage-keys';
import type { VersionStore } from './version-store';

/** Long enough for any migration; a replica killed mid-migration frees the lock when it expires. */
const LOCK_TTL_MS = 10 * 60_000;
const LOCK_POLL_MS = 250;
/** Deletes the lock only while it is still ours (it may have expired and been taken by another). */
const UNLOCK = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

export class RedisVersionStore implements VersionStore {
  private readonly token = randomUUID();

  constructor(
    private readonly redis: Redis,
    readonly prefix: string,
  ) {}

  async version(): Promise<number> {
    const raw = await this.redis.get(storageVersionKey(this.prefix));
    return raw === null ? 0 : Number(raw);
  }

  async setVersion(version: number): Promise<void> {
    await this.redis.set(storageVersionKey(this.prefix), String(version));
  }

  async tryLock(): Promise<boolean> {
    return (await this.redis.set(storageMigrationLockKey(this.prefix), this.token, 'PX', LOCK_TTL_MS, 'NX')) === 'OK';
  }

  async unlock(): Promise<void> {
    await this.redis.eval(UNLOCK, 1, storageMigrationLockKey(this.prefix), this.token);
  }

  // Polled: the lock holder may die without a word, and then only the key's expiry tells.
  async lockReleased(deadlineMs: number): Promise<void> {
    const until = Date.now() + deadlineMs;
    while (Date.now() < until && (await this.redis.exists(storageMigrationLockKey(this.prefix))) === 1) await sleep(LOCK_POLL_MS);
  }
}
