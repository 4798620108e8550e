import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../../infra/redis-keys';
import { REDIS } from '../../infra/tokens';

/**
 * Device sign-ins (`weft login`) waiting for the user to confirm at the provider. The CLI holds
 * only a random handle; the device code stays here, with the provider's own expiry.
 */
@Injectable()
export class DeviceSignInsRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async save(handle: string, deviceCode: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.key(handle), deviceCode, 'EX', Math.max(1, Math.round(ttlSeconds)));
  }

  async find(handle: string): Promise<string | undefined> {
    return (await this.redis.get(this.key(handle))) ?? undefined;
  }

  /** False when another poll finished it first: only one of them mints the key. */
  async finish(handle: string): Promise<boolean> {
    return (await this.redis.del(this.key(handle))) === 1;
  }

  private key(handle: string): string {
    return `${this.keys.prefix}oidc:device:${handle}`;
  }
}
