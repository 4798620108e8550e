import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { Migration } from './migration';
import { runMigrations } from './migration-runner';
import type { VersionStore } from './version-store';

class FakeStore implements VersionStore {
  readonly prefix = 'fake:';
  stored = 0;
  locked = false;
  /** Runs when a replica finds the lock taken, standing in for the other replica's work. */
  onWait: () => void = () => undefined;

  async version() {
    return this.stored;
  }
  async setVersion(version: number) {
    this.stored = version;
  }
  async tryLock() {
    if (this.locked) return false;
    this.locked = true;
    return true;
  }
  async unlock() {
    this.locked = false;
  }
  async lockReleased() {
    this.onWait();
  }
}

const redis = {} as Redis;

function recording(log: string[], versions: number[]): Migration[] {
  return versions.map((version) => ({ version, name: `m${version}`, up: async () => void log.push(`m${version}`) }));
}

describe('runMigrations', () => {
  it('runs the pending migrations in order and stamps each version', async () => {
    const store = new FakeStore();
    store.stored = 1;
    const log: string[] = [];
    const report = await runMigrations(store, redis, recording(log, [1, 2, 3]));
    expect(log).toEqual(['m2', 'm3']);
    expect(report).toEqual({ from: 1, to: 3, applied: ['0002-m2', '0003-m3'] });
    expect(store.stored).toBe(3);
    expect(store.locked).toBe(false);
  });

  it('does nothing the second time', async () => {
    const store = new FakeStore();
    const log: string[] = [];
    await runMigrations(store, redis, recording(log, [1, 2]));
    const again = await runMigrations(store, redis, recording(log, [1, 2]));
    expect(log).toEqual(['m1', 'm2']);
    expect(again.applied).toEqual([]);
  });

  it('refuses a store newer than it knows, and writes nothing', async () => {
    const store = new FakeStore();
    store.stored = 5;
    const log: string[] = [];
    await expect(runMigrations(store, redis, recording(log, [1, 2]))).rejects.toMatchObject({
      code: 'COMMON.CONFLICT',
      details: { storageVersion: 5, knownVersion: 2 },
      message: expect.stringContaining('newer than this gateway knows (2)'),
    });
    expect(log).toEqual([]);
    expect(store.stored).toBe(5);
  });

  it('waits for the replica holding the lock and then finds nothing to do', async () => {
    const store = new FakeStore();
    store.locked = true;
    store.onWait = () => {
      store.stored = 2;
      store.locked = false;
    };
    const log: string[] = [];
    const report = await runMigrations(store, redis, recording(log, [1, 2]));
    expect(log).toEqual([]);
    expect(report).toEqual({ from: 2, to: 2, applied: [] });
  });

  it('leaves the version at the last migration that finished when one fails, and frees the lock', async () => {
    const store = new FakeStore();
    const migrations: Migration[] = [
      { version: 1, name: 'ok', up: async () => undefined },
      { version: 2, name: 'broken', up: async () => Promise.reject(new Error('boom')) },
    ];
    await expect(runMigrations(store, redis, migrations)).rejects.toThrow('boom');
    expect(store.stored).toBe(1);
    expect(store.locked).toBe(false);
  });

  it('rejects migrations whose versions skip or repeat', async () => {
    await expect(runMigrations(new FakeStore(), redis, recording([], [1, 3]))).rejects.toThrow('expected 2');
  });
});
