import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../../infra/redis-keys';
import { REDIS } from '../../infra/tokens';
import type { PendingSignIn } from './oidc-provider-client';

/** A sign-in not finished in this long must start again. */
const PENDING_TTL_SECONDS = 600;

/**
 * Sign-ins between the redirect to the provider and its callback, keyed by a random id that only
 * the browser which started it holds (in a cookie). `take` removes it: a callback is honoured once.
 */
@Injectable()
export class PendingSignInsRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async save(id: string, pending: PendingSignIn): Promise<void> {
    await this.redis.set(this.key(id), JSON.stringify(pending), 'EX', PENDING_TTL_SECONDS);
  }

  async take(id: string): Promise<PendingSignIn | undefined> {
    const stored = await this.redis.getdel(this.key(id));
    return stored === null ? undefined : (JSON.parse(stored) as PendingSignIn);
  }

  private key(id: string): string {
    return `${this.keys.prefix}oidc:pending:${id}`;
  }
}

export const PENDING_TTL_MS = PENDING_TTL_SECONDS * 1000;
