import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from '@weft/logging';
import type { ContainerRuntime, ContainerSpec, WarmContainer } from '../docker/container-runtime';

export interface WarmPoolSettings {
  /** Containers kept idle; 0 turns the pool off. */
  size: number;
  /** How long a pooled container may wait for its job. */
  idleMs: number;
  /** The longest run a pooled container is sized for (its sweep deadline allows for it). */
  maxRunMs: number;
}

/** Builds the spec of one pooled container created at `now`. */
export type WarmSpecFactory = (now: number) => ContainerSpec;

interface Entry {
  container: WarmContainer;
  /** Past this the runner may already have given up: never hand it a job. */
  idleUntil: number;
  /** A run must be over by then, or another replica's sweep may remove it. */
  runsUntil: number;
}

/** Retire a little before the runner's own idle timeout, so a job never races it. */
const IDLE_MARGIN_MS = 5_000;
const MAX_BACKOFF_MS = 30_000;

/**
 * Containers created and started ahead of need, each handed exactly one job and then destroyed.
 * Refilled one at a time in the background; when empty, callers fall back to a cold start.
 */
export class WarmPool implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly idle: Entry[] = [];
  private filling?: Promise<void>;
  private closed = false;
  /** Consecutive failures to keep a container warm; drives the refill backoff. */
  private failures = 0;
  private retireTimer?: NodeJS.Timeout;
  private pause?: { timer: NodeJS.Timeout; resolve: () => void };
  private fullWaiters: Array<() => void> = [];
  readonly stats = { hits: 0, misses: 0 };

  constructor(
    private readonly runtime: Pick<ContainerRuntime, 'startWarm' | 'discard'>,
    private readonly specFor: WarmSpecFactory,
    private readonly settings: WarmPoolSettings,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  onApplicationBootstrap(): void {
    if (this.settings.size === 0) return;
    const every = Math.min(30_000, Math.max(1_000, Math.floor(this.settings.idleMs / 4)));
    this.retireTimer = setInterval(() => this.retireStale(), every).unref();
    this.refill();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }

  get idleCount(): number {
    return this.idle.length;
  }

  /** A warm container that can run a job of `timeoutMs`, or undefined for a cold start. */
  take(timeoutMs: number): WarmContainer | undefined {
    if (this.settings.size === 0 || this.closed) return undefined;
    const now = this.clock();
    this.retireStale(now);
    const index = this.idle.findIndex((entry) => now + timeoutMs <= entry.runsUntil);
    const entry = index >= 0 ? this.idle.splice(index, 1)[0] : undefined;
    if (entry) {
      this.stats.hits++;
      this.failures = 0;
    } else {
      this.stats.misses++;
    }
    this.refill();
    return entry?.container;
  }

  /** Resolves once the pool holds `size` idle containers (or is closed). */
  whenFull(): Promise<void> {
    if (this.closed || this.idle.length >= this.settings.size) return Promise.resolve();
    return new Promise((resolve) => this.fullWaiters.push(resolve));
  }

  /** Stops refilling, waits for a refill in flight and removes every idle container. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.retireTimer);
    if (this.pause) {
      clearTimeout(this.pause.timer);
      this.pause.resolve();
    }
    await this.filling;
    const idle = this.idle.splice(0);
    await Promise.all(idle.map((entry) => this.runtime.discard(entry.container)));
    this.notifyFull();
  }

  private refill(): void {
    if (this.filling || this.closed || this.idle.length >= this.settings.size) return;
    this.filling = this.fillLoop().finally(() => {
      this.filling = undefined;
      // A take may have landed while the loop was returning.
      this.refill();
    });
  }

  private async fillLoop(): Promise<void> {
    while (!this.closed && this.idle.length < this.settings.size) {
      if (this.failures > 0) await this.backoff(Math.min(MAX_BACKOFF_MS, 500 * 2 ** (this.failures - 1)));
      if (this.closed) return;
      const now = this.clock();
      try {
        const container = await this.runtime.startWarm(this.specFor(now));
        const entry: Entry = {
          container,
          idleUntil: now + this.settings.idleMs - IDLE_MARGIN_MS,
          runsUntil: now + this.settings.idleMs + this.settings.maxRunMs,
        };
        if (this.closed) {
          await this.runtime.discard(container);
          return;
        }
        this.idle.push(entry);
        void container.stopped.then(() => this.onStopped(entry));
        this.notifyFull();
      } catch (error) {
        this.failures++;
        this.logger.warn({ err: error, failures: this.failures }, 'could not start a warm sandbox container');
      }
    }
  }

  /** A container that stops while still idle died on its own: drop it and start another. */
  private onStopped(entry: Entry): void {
    const index = this.idle.indexOf(entry);
    if (index < 0) return;
    this.idle.splice(index, 1);
    if (this.clock() < entry.idleUntil) {
      this.failures++;
      this.logger.warn({ containerId: entry.container.id }, 'warm sandbox container stopped while idle');
    }
    void this.runtime.discard(entry.container);
    this.refill();
  }

  private retireStale(now = this.clock()): void {
    const stale = this.idle.filter((entry) => now >= entry.idleUntil);
    if (stale.length === 0) return;
    for (const entry of stale) this.idle.splice(this.idle.indexOf(entry), 1);
    void Promise.all(stale.map((entry) => this.runtime.discard(entry.container)));
    this.refill();
  }

  private backoff(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pause = undefined;
        resolve();
      }, ms);
      this.pause = { timer, resolve };
    });
  }

  private notifyFull(): void {
    if (!this.closed && this.idle.length < this.settings.size) return;
    const waiters = this.fullWaiters.splice(0);
    for (const resolve of waiters) resolve();
  }
}
