import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from '@weft/logging';
import type { ContainerRuntime, ContainerSpec, WarmContainer } from '../docker/container-runtime';
import { PeakDemand } from './peak-demand';

export interface WarmPoolSettings {
  /** Containers kept idle at the least; 0 turns the pool off. */
  size: number;
  /** The most it grows to when more snippets than that come at once (never below `size`). */
  maxSize: number;
  /** How long a peak of demand keeps the pool grown. */
  demandWindowMs: number;
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

/** A pooled container handed to one snippet; `release` when the snippet's run is over. */
export interface PoolLease {
  /** Undefined when none was idle (or fit): the snippet starts cold. */
  readonly container?: WarmContainer;
  release(): void;
}

/** Retire a little before the server's own idle timeout, so a snippet never races it. */
const IDLE_MARGIN_MS = 5_000;
const MAX_BACKOFF_MS = 30_000;

/**
 * Containers created and started ahead of need, each handed exactly one snippet and then
 * destroyed. Refilled one at a time in the background; when empty, callers fall back to a cold
 * start and never wait. It holds as many idle as the most snippets that ran at once within the
 * demand window, between `size` and `maxSize`; surplus containers are removed as demand falls.
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
  /** Snippets holding a lease now. */
  private leased = 0;
  private readonly demand: PeakDemand;
  readonly stats = { hits: 0, misses: 0 };

  constructor(
    private readonly runtime: Pick<ContainerRuntime, 'startWarm' | 'discard'>,
    private readonly specFor: WarmSpecFactory,
    private readonly settings: WarmPoolSettings,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {
    this.demand = new PeakDemand(settings.demandWindowMs);
  }

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

  /** How many idle containers the pool aims for now. */
  get target(): number {
    if (this.settings.size === 0) return 0;
    const cap = Math.max(this.settings.size, this.settings.maxSize);
    return Math.min(cap, Math.max(this.settings.size, this.demand.peak(this.clock())));
  }

  /** A snippet of `timeoutMs` asks for a container; counted as demand whether one is idle or not. */
  lease(timeoutMs: number): PoolLease {
    if (this.settings.size === 0 || this.closed) return { release: () => undefined };
    this.leased++;
    this.demand.record(this.leased, this.clock());
    const container = this.take(timeoutMs);
    let held = true;
    return {
      container,
      release: () => {
        if (held) this.leased--;
        held = false;
        // After the reply is on its way (it is sent when the caller's promise settles).
        setImmediate(() => this.refill());
      },
    };
  }

  /** A warm container that can run a snippet of `timeoutMs`, or undefined for a cold start. */
  private take(timeoutMs: number): WarmContainer | undefined {
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
    // While others stay idle the refill waits for the release: starting a container (the
    // engine's create, start and attach) beside the snippet slows the snippet on a small host.
    if (this.idle.length === 0) this.refill();
    return entry?.container;
  }

  /** Resolves once the pool holds its target of idle containers (or is closed). */
  whenFull(): Promise<void> {
    if (this.closed || this.idle.length >= this.target) return Promise.resolve();
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
    if (this.filling || this.closed || this.idle.length >= this.target) return;
    this.filling = this.fillLoop().finally(() => {
      this.filling = undefined;
      // A take may have landed while the loop was returning.
      this.refill();
    });
  }

  private async fillLoop(): Promise<void> {
    while (!this.closed && this.idle.length < this.target) {
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

  /** Removes containers past their idle time, and the oldest beyond the target as demand falls. */
  private retireStale(now = this.clock()): void {
    const surplus = Math.max(0, this.idle.length - this.target);
    const stale = this.idle.filter((entry, index) => now >= entry.idleUntil || index < surplus);
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
    if (!this.closed && this.idle.length < this.target) return;
    const waiters = this.fullWaiters.splice(0);
    for (const resolve of waiters) resolve();
  }
}
