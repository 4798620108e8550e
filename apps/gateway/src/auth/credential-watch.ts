import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from '@weft/logging';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../infra/redis-keys';
import { LOGGER, REDIS } from '../infra/tokens';
import type { Principal } from './principal';

/** What changed: one key revoked, or every key of a user (disabled or deleted). */
export type CredentialNotice = { keyId: string } | { userId: string };

interface Watcher {
  principal: Principal;
  end: (reason: string) => void;
}

/**
 * Keeps long-lived requests (event streams) to what their key still allows. A key is checked when
 * a request comes in; a stream outlives that check, so revoking a key or disabling a user is also
 * announced over Redis pub/sub to every replica, which ends the streams of that key or user at
 * once. `refusal` re-reads the key and user, for the checks a stream makes between writes (a
 * notice missed while the subscriber reconnected is caught by those).
 */
@Injectable()
export class CredentialWatch implements OnModuleDestroy {
  private readonly watchers = new Set<Watcher>();
  private subscriber?: Promise<Redis>;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Under the gateway's key prefix, so deployments (and tests) sharing a Redis stay apart. */
  private get channel(): string {
    return `${this.keys.prefix}credentials-revoked`;
  }

  /** Sent after the key is deleted or the user disabled, so a stream told of it finds it so. */
  async announce(notice: CredentialNotice): Promise<void> {
    await this.redis.publish(this.channel, JSON.stringify(notice));
  }

  /** Why the principal may no longer read (its key revoked or expired, its user disabled or gone); undefined while it may. */
  async refusal(principal: Principal, now = Date.now()): Promise<string | undefined> {
    if (principal.keyExpiresAt && Date.parse(principal.keyExpiresAt) <= now) return `API key ${principal.keyId} expired at ${principal.keyExpiresAt}`;
    const replies = await this.redis.pipeline().hexists(this.keys.userKeys(principal.userId), principal.keyId).hmget(this.keys.user(principal.userId), 'id', 'disabled').exec();
    const [keyReply, userReply] = replies ?? [];
    const failed = keyReply?.[0] ?? userReply?.[0];
    if (failed) throw failed;
    const [id, disabled] = (userReply?.[1] ?? []) as Array<string | null>;
    if (id === null || id === undefined) return `user ${principal.userId} no longer exists`;
    if (disabled === '1') return `user ${principal.userId} is disabled`;
    // A browser session has no key record: its end (expiry above, sign-out by notice) is what counts.
    if (!principal.webSession && keyReply?.[1] !== 1) return `API key ${principal.keyId} was revoked`;
    return undefined;
  }

  /** Calls `end` when a notice names the principal's key or user; resolves once notices are heard. */
  async watch(principal: Principal, end: (reason: string) => void): Promise<() => void> {
    const watcher = { principal, end };
    this.watchers.add(watcher);
    await this.subscribed();
    return () => this.watchers.delete(watcher);
  }

  async onModuleDestroy(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber) (await subscriber.catch(() => undefined))?.disconnect();
  }

  /** One subscriber per replica, made when the first stream opens (most requests never need it). */
  private subscribed(): Promise<Redis> {
    this.subscriber ??= (async () => {
      const subscriber = this.redis.duplicate();
      subscriber.on('message', (_channel: string, message: string) => this.notify(message));
      subscriber.on('error', (err) => this.logger.warn({ err }, 'credential notice subscriber error'));
      await subscriber.subscribe(this.channel);
      return subscriber;
    })();
    return this.subscriber;
  }

  private notify(message: string): void {
    let notice: Partial<{ keyId: unknown; userId: unknown }>;
    try {
      notice = JSON.parse(message) as typeof notice;
    } catch (err) {
      this.logger.warn({ err }, 'credential notice is not JSON');
      return;
    }
    for (const watcher of [...this.watchers]) {
      if (notice.keyId === watcher.principal.keyId) watcher.end(watcher.principal.webSession ? 'signed out' : `API key ${watcher.principal.keyId} was revoked`);
      else if (notice.userId === watcher.principal.userId) watcher.end(`user ${watcher.principal.userId} was disabled`);
    }
  }
}
