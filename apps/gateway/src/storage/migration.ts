import type { Redis } from 'ioredis';

/**
 * One step of the stored format. `up` must be idempotent: a replica that dies after `up` and
 * before the version is written runs it again. Versions are persisted: never renumber one.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  up(redis: Redis, prefix: string): Promise<void>;
}
