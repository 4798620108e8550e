import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { LOGGER, REDIS } from '../infra/tokens';
import { storageRestoreLockKey } from './storage-keys';

/** Renewed while held; a replica killed mid-restore frees the lock when it expires. */
const LOCK_TTL_MS = 60_000;
const RENEW_EVERY_MS = LOCK_TTL_MS / 3;
const RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0";
const UNLOCK = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

/**
 * One restore at a time across every replica, held from the archive's first byte to its last
 * workspace: two restores would unpack over each other's store. A second one is refused at once
 * (409 `STORAGE.RESTORE_IN_PROGRESS`), before its body is read.
 */
@Injectable()
export class RestoreLock {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    const key = storageRestoreLockKey(this.keys.prefix);
    const token = randomUUID();
    if ((await this.redis.set(key, token, 'PX', LOCK_TTL_MS, 'NX')) !== 'OK') {
      throw new AppError(ErrorCode.RestoreInProgress, 'Another restore is under way: wait for it to answer, then try again if its result is not what you want', {}, true);
    }
    const renewal = setInterval(() => {
      this.redis.eval(RENEW, 1, key, token, LOCK_TTL_MS).catch((error: unknown) => this.logger.warn({ err: error }, 'the restore lock could not be renewed'));
    }, RENEW_EVERY_MS);
    try {
      return await work();
    } finally {
      clearInterval(renewal);
      await this.redis.eval(UNLOCK, 1, key, token);
    }
  }
}
