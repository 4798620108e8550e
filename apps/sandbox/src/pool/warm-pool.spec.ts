import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContainerSpec, WarmContainer } from '../docker/container-runtime';
import { WarmPool, type WarmPoolSettings } from './warm-pool';

/** A fake engine whose warm containers stop when the test says so. */
class FakeEngine {
  readonly started: string[] = [];
  readonly discarded: string[] = [];
  readonly stop = new Map<string, () => void>();
  failNext = 0;

  async startWarm(spec: ContainerSpec): Promise<WarmContainer> {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('engine said no');
    }
    const id = `c${this.started.length + 1}@${spec.labels.now}`;
    this.started.push(id);
    return { id, stopped: new Promise<void>((resolve) => this.stop.set(id, resolve)) };
  }

  async discard(container: WarmContainer): Promise<void> {
    this.discarded.push(container.id);
  }
}

const logger = pino({ level: 'silent' });
const settings: WarmPoolSettings = { size: 2, maxSize: 2, demandWindowMs: 30_000, idleMs: 60_000, maxRunMs: 10_000 };
const pools: WarmPool[] = [];

function setup(overrides: Partial<WarmPoolSettings> = {}, now = { value: 0 }) {
  const engine = new FakeEngine();
  const specFor = (at: number) => ({ labels: { now: String(at) } }) as unknown as ContainerSpec;
  const pool = new WarmPool(engine, specFor, { ...settings, ...overrides }, logger, () => now.value);
  pools.push(pool);
  pool.onApplicationBootstrap();
  return { engine, pool, now };
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

describe('WarmPool', () => {
  it('starts containers ahead of need up to its size', async () => {
    const { engine, pool } = setup();
    await pool.whenFull();
    expect(pool.idleCount).toBe(2);
    expect(engine.started).toEqual(['c1@0', 'c2@0']);
  });

  it('hands each container out once and refills behind it', async () => {
    const { engine, pool } = setup();
    await pool.whenFull();
    const first = pool.lease(5_000).container;
    const second = pool.lease(5_000).container;
    expect([first?.id, second?.id]).toEqual(['c1@0', 'c2@0']);
    await pool.whenFull();
    expect(engine.started).toHaveLength(4);
    expect(pool.stats).toEqual({ hits: 2, misses: 0 });
  });

  it('starts no container beside a running snippet while others are idle: the refill waits for its end', async () => {
    const { engine, pool } = setup({ size: 3, maxSize: 3 });
    await pool.whenFull();
    await new Promise((resolve) => setImmediate(resolve)); // the fill loop has returned
    const lease = pool.lease(5_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(engine.started).toHaveLength(3);
    lease.release();
    await pool.whenFull();
    expect(engine.started).toHaveLength(4);
  });

  it('refills at once when the lease took the last idle container', async () => {
    const { engine, pool } = setup({ size: 1, maxSize: 1 });
    await pool.whenFull();
    pool.lease(5_000);
    await pool.whenFull();
    expect(engine.started).toEqual(['c1@0', 'c2@0']);
  });

  it('returns nothing when empty, so the caller starts cold', async () => {
    const { pool } = setup({ size: 0 });
    expect(pool.lease(5_000).container).toBeUndefined();
  });

  it('never hands out a container whose runner may have given up, and replaces it', async () => {
    const { engine, pool, now } = setup();
    await pool.whenFull();
    now.value = 59_000;
    expect(pool.lease(1_000).container).toBeUndefined();
    expect(engine.discarded).toEqual(['c1@0', 'c2@0']);
    await pool.whenFull();
    expect(pool.lease(1_000).container?.id).toBe('c3@59000');
  });

  it('keeps a young container for a run longer than an old one can fit', async () => {
    const { pool, now } = setup({ size: 1 });
    await pool.whenFull();
    now.value = 50_000;
    expect(pool.lease(25_000).container).toBeUndefined();
    expect(pool.lease(15_000).container?.id).toBe('c1@0');
  });

  it('drops a container that stops while idle and starts another', async () => {
    const { engine, pool } = setup({ size: 1 });
    await pool.whenFull();
    engine.stop.get('c1@0')?.();
    await expect.poll(() => engine.started).toHaveLength(2);
    expect(engine.discarded).toEqual(['c1@0']);
    await pool.whenFull();
    expect(pool.lease(1_000).container?.id).toBe('c2@0');
  });

  it('keeps trying after the engine fails to start one', async () => {
    const { engine, pool } = setup({ size: 1 });
    engine.failNext = 1;
    await pool.whenFull();
    expect(pool.idleCount).toBe(1);
  });

  it('grows to the most snippets that ran at once, up to its cap, and serves the next such burst warm', async () => {
    const { engine, pool } = setup({ size: 1, maxSize: 3 });
    await pool.whenFull();
    const burst = Array.from({ length: 5 }, () => pool.lease(1_000));
    expect(burst.filter((lease) => lease.container)).toHaveLength(1);
    burst.forEach((lease) => lease.release());
    expect(pool.target).toBe(3);
    await pool.whenFull();
    expect(pool.idleCount).toBe(3);
    const next = Array.from({ length: 3 }, () => pool.lease(1_000));
    expect(next.every((lease) => lease.container)).toBe(true);
    expect(engine.started.length).toBeGreaterThanOrEqual(4);
  });

  it('counts a run as demand until it is released, warm or cold', async () => {
    const { pool } = setup({ size: 1, maxSize: 8 });
    await pool.whenFull();
    for (let i = 0; i < 4; i++) pool.lease(1_000).release();
    expect(pool.target).toBe(1);
    const held = [pool.lease(1_000), pool.lease(1_000)];
    expect(pool.target).toBe(2);
    held.forEach((lease) => lease.release());
  });

  it('shrinks back to its size once the burst is older than the demand window', async () => {
    const { engine, pool, now } = setup({ size: 1, maxSize: 4 });
    await pool.whenFull();
    Array.from({ length: 4 }, () => pool.lease(1_000)).forEach((lease) => lease.release());
    await pool.whenFull();
    expect(pool.idleCount).toBe(4);
    now.value = 31_000;
    expect(pool.target).toBe(1);
    // The surplus goes, the last one serves the snippet, and one is refilled behind it.
    expect(pool.lease(1_000).container).toBeDefined();
    expect(engine.discarded).toHaveLength(3);
    await pool.whenFull();
    expect(pool.idleCount).toBe(1);
  });

  it('removes its idle containers on close and starts no more', async () => {
    const { engine, pool } = setup();
    await pool.whenFull();
    await pool.close();
    expect(engine.discarded.sort()).toEqual(['c1@0', 'c2@0']);
    expect(pool.lease(1_000).container).toBeUndefined();
    expect(engine.started).toHaveLength(2);
  });
});
