import { ErrorCode, type WorkerHeartbeat } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FleetRegistry, type FleetStore } from './fleet-registry';
import { FleetRouter } from './fleet-router';
import { modelsOf } from '../models/models.service';

function heartbeat(workerId: string, overrides: Partial<WorkerHeartbeat> = {}, model: Partial<WorkerHeartbeat['models'][number]> = {}): WorkerHeartbeat {
  return {
    workerId,
    status: 'ready',
    intervalMs: 1000,
    startedAt: '2025-01-01T00:00:00.000Z',
    sentAt: '2025-01-01T00:00:00.000Z',
    inFlight: 0,
    models: [{ id: 'tiny', provider: 'llama', contextSize: 2048, loaded: true, freeSequences: 2, queued: 0, maxQueue: 4, cachedSessions: [], ...model }],
    ...overrides,
  };
}

class MemoryStore implements FleetStore {
  saved = new Map<string, WorkerHeartbeat>();
  async save(hb: WorkerHeartbeat) {
    this.saved.set(hb.workerId, hb);
  }
  async remove(workerId: string) {
    this.saved.delete(workerId);
  }
  async load() {
    return [...this.saved.values()];
  }
}

const log = createLogger('fleet-test', 'silent');

describe('FleetRegistry', () => {
  let store: MemoryStore;
  let registry: FleetRegistry;

  beforeEach(() => {
    vi.useFakeTimers();
    store = new MemoryStore();
    registry = new FleetRegistry(store, log);
  });
  afterEach(() => {
    registry.close();
    vi.useRealTimers();
  });

  it('keeps a worker while it heartbeats and drops it after three missed beats', () => {
    registry.apply(heartbeat('w1'));
    vi.advanceTimersByTime(2500);
    registry.apply(heartbeat('w1'));
    vi.advanceTimersByTime(2900);
    expect(registry.workers().map((w) => w.workerId)).toEqual(['w1']);
    vi.advanceTimersByTime(200);
    expect(registry.workers()).toEqual([]);
    expect(store.saved.size).toBe(0);
  });

  it('does not drop a worker when its drop timer fires late because this gateway stalled, and reads the beats that waited', () => {
    let stalledMs = 0;
    const stalling = new FleetRegistry(store, log, () => performance.now() + stalledMs);
    const lost = vi.fn();
    stalling.apply(heartbeat('w1'));
    stalling.onLost('w1', lost);
    vi.advanceTimersByTime(2000);
    // The loop is blocked for 5 s: the timer is due at 3 s and runs first when the loop wakes.
    stalledMs = 5000;
    vi.advanceTimersByTime(1000);
    expect(stalling.get('w1')).toBeDefined();
    // The heartbeats the worker sent meanwhile are read next, and renew it.
    stalling.apply(heartbeat('w1'));
    vi.advanceTimersByTime(2900);
    expect(stalling.get('w1')).toBeDefined();
    expect(lost).not.toHaveBeenCalled();
    stalling.close();
  });

  it('drops a silent worker one beat after a stall of this gateway, when no heartbeat was waiting', () => {
    let stalledMs = 0;
    const stalling = new FleetRegistry(store, log, () => performance.now() + stalledMs);
    const lost = vi.fn();
    stalling.apply(heartbeat('dead'));
    stalling.onLost('dead', lost);
    stalledMs = 5000;
    vi.advanceTimersByTime(3000);
    expect(stalling.get('dead')).toBeDefined();
    vi.advanceTimersByTime(1000);
    expect(stalling.get('dead')).toBeUndefined();
    expect(lost).toHaveBeenCalledWith(expect.objectContaining({ code: ErrorCode.WorkerLost }));
    stalling.close();
  });

  it('drops a worker that says it stopped and tells whoever streams from it', () => {
    registry.apply(heartbeat('w1'));
    const lost = vi.fn();
    registry.onLost('w1', lost);
    registry.apply(heartbeat('w1', { status: 'stopped' }));
    expect(registry.get('w1')).toBeUndefined();
    expect(lost).toHaveBeenCalledWith(expect.objectContaining({ code: ErrorCode.WorkerLost, retryable: true }));
  });

  it('tells whoever streams from a worker that came back under the same id that its generation is lost', () => {
    registry.apply(heartbeat('gpu0'));
    const lost = vi.fn();
    registry.onLost('gpu0', lost);
    registry.apply(heartbeat('gpu0', { sentAt: '2025-01-01T00:00:01.000Z' }));
    expect(lost).not.toHaveBeenCalled();
    registry.apply(heartbeat('gpu0', { startedAt: '2025-01-01T00:00:02.000Z' }));
    expect(lost).toHaveBeenCalledWith(expect.objectContaining({ code: ErrorCode.WorkerLost, retryable: true }));
    expect(registry.get('gpu0')).toBeDefined();
  });

  it('falls back to the Redis mirror before it has heard any heartbeat', async () => {
    await store.save(heartbeat('remote'));
    expect((await registry.snapshot()).map((w) => w.workerId)).toEqual(['remote']);
  });
});

describe('FleetRouter', () => {
  const affinity = (map: Record<string, string>) => ({
    affinity: async (sessionId: string) => map[sessionId],
    recordAffinity: async () => undefined,
  });

  function registryWith(...beats: WorkerHeartbeat[]) {
    const registry = new FleetRegistry(new MemoryStore(), log);
    beats.forEach((b) => registry.apply(b));
    return registry;
  }

  it('tries the affine worker first, then the one caching the session, then by free sequences, queue group last', async () => {
    const registry = registryWith(
      heartbeat('busy', {}, { freeSequences: 0, queued: 4 }),
      heartbeat('roomy', {}, { freeSequences: 3 }),
      heartbeat('affine', {}, { freeSequences: 1 }),
      heartbeat('holder', {}, { freeSequences: 1, cachedSessions: ['s2'] }),
    );
    const router = new FleetRouter(registry, affinity({ s1: 'affine' }), log);
    expect(await router.plan('tiny', 's1')).toEqual([
      { kind: 'worker', workerId: 'affine', reason: 'affinity' },
      { kind: 'worker', workerId: 'roomy', reason: 'least-loaded' },
      { kind: 'worker', workerId: 'holder', reason: 'least-loaded' },
      { kind: 'queue-group' },
    ]);
    expect((await router.plan('tiny', 's2'))[0]).toEqual({ kind: 'worker', workerId: 'holder', reason: 'cached' });
    registry.close();
  });

  it('prefers a worker with the model loaded, then loading, then one it fits in without unloading others', async () => {
    const MIB = 1024 * 1024;
    const registry = registryWith(
      heartbeat('must-evict', { memory: { budgetBytes: 100 * MIB, usedBytes: 90 * MIB } }, { loaded: false, state: 'unloaded', memoryBytes: 40 * MIB, freeSequences: 4 }),
      heartbeat('fits', { memory: { budgetBytes: 100 * MIB, usedBytes: 50 * MIB } }, { loaded: false, state: 'unloaded', memoryBytes: 40 * MIB, freeSequences: 3 }),
      heartbeat('loading', {}, { loaded: false, state: 'loading', freeSequences: 2 }),
      heartbeat('loaded-busy', {}, { loaded: true, state: 'loaded', freeSequences: 0, queued: 1 }),
    );
    const router = new FleetRouter(registry, affinity({}), log);
    expect(await router.plan('tiny')).toEqual([
      { kind: 'worker', workerId: 'loaded-busy', reason: 'least-loaded' },
      { kind: 'worker', workerId: 'loading', reason: 'least-loaded' },
      { kind: 'worker', workerId: 'fits', reason: 'least-loaded' },
      { kind: 'queue-group' },
    ]);
    registry.close();
  });

  it('skips draining workers and workers without the model, and keeps the queue group when none is left', async () => {
    const registry = registryWith(heartbeat('draining', { status: 'draining' }), heartbeat('other', {}, { id: 'big' }));
    const router = new FleetRouter(registry, affinity({ s: 'draining' }), log);
    expect(await router.plan('tiny', 's')).toEqual([{ kind: 'queue-group' }]);
    registry.close();
  });
});

describe('modelsOf', () => {
  it('lists each model once across ready workers, with its roles', () => {
    const models = modelsOf([
      heartbeat('a', {}, { roles: ['senior'], sequences: 4 }),
      heartbeat('b'),
      heartbeat('c', { status: 'draining' }, { id: 'leaving' }),
    ]);
    expect(models).toEqual([{ id: 'tiny', provider: 'llama', contextSize: 2048, roles: ['senior'], sequences: 4 }]);
  });
});
