import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { storeRefusal } from './store-refusal';
import { REDIS } from './tokens';

/** How often the store is probed, and how long a probe may take before Redis counts as down. */
export const STORE_PROBE_INTERVAL_MS = 500;
export const STORE_PROBE_TIMEOUT_MS = 1_000;

type Listener = () => void;

/**
 * Whether the shared Redis client can be used now. A closed connection says so at once (ioredis
 * events); a Redis that stops answering on an open connection (paused, wedged, a partition) says
 * nothing, so a PING that takes longer than STORE_PROBE_TIMEOUT_MS counts as down too.
 */
@Injectable()
export class RedisAvailability implements OnModuleInit, OnApplicationShutdown {
  // Up until shown otherwise: at boot the client may still be connecting, and a first command
  // waits for that on its own.
  private connected = true;
  private answering = true;
  private probeSentAt: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly downListeners = new Set<Listener>();

  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  get up(): boolean {
    return this.connected && this.answering;
  }

  onModuleInit(): void {
    this.redis.on('ready', () => this.set(true, this.answering));
    this.redis.on('close', () => this.set(false, this.answering));
    this.timer = setInterval(() => this.probe(), STORE_PROBE_INTERVAL_MS);
    this.timer.unref();
    this.probe();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Calls `listener` once, the next time the store goes down; the returned function forgets it. */
  onceDown(listener: Listener): () => void {
    this.downListeners.add(listener);
    return () => this.downListeners.delete(listener);
  }

  private probe(): void {
    const status = this.redis.status;
    if (status === 'connecting' || status === 'connect' || status === 'wait') return; // booting
    if (status !== 'ready') return this.set(false, this.answering);
    const sentAt = this.probeSentAt;
    if (sentAt !== undefined) {
      if (Date.now() - sentAt <= STORE_PROBE_TIMEOUT_MS) return;
      // After a stalled event loop timers run before sockets are read: judge only once the reply
      // that may be waiting in the socket had its chance (setImmediate runs after the poll phase).
      setImmediate(() => {
        // The last PING is still out: the connection is open but nothing answers.
        if (this.probeSentAt === sentAt) this.set(this.connected, false);
      });
      return;
    }
    this.probeSentAt = Date.now();
    this.redis.ping().then(
      () => this.probeAnswered(true),
      // Redis answers PING with MISCONF while it cannot save: it is up, refusing writes (STORE.READ_ONLY).
      (error: unknown) => this.probeAnswered(storeRefusal(error) !== undefined),
    );
  }

  private probeAnswered(ok: boolean): void {
    this.probeSentAt = undefined;
    this.set(this.redis.status === 'ready', ok);
  }

  private set(connected: boolean, answering: boolean): void {
    const wasUp = this.up;
    this.connected = connected;
    this.answering = answering;
    if (wasUp && !this.up) {
      const listeners = [...this.downListeners];
      this.downListeners.clear();
      for (const listener of listeners) listener();
    }
  }
}
