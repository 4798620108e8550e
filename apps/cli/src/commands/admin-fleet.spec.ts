import { describe, expect, it } from 'vitest';
import type { FleetWorker } from '../admin-client';
import { rows } from './admin-fleet';

const model = (id: string, state: 'loaded' | 'unloaded') => ({ id, loaded: state === 'loaded', state, memoryBytes: 1024 ** 3, pinned: false, sequences: 2, freeSequences: 2, queued: 0, cachedSessions: 0 });

const worker: FleetWorker = {
  workerId: 'inference-1',
  host: 'gpu-a',
  status: 'ready',
  startedAt: '2026-11-28T10:00:00.000Z',
  lastHeartbeatAt: '2026-11-28T10:00:10.000Z',
  inFlight: 0,
  gpu: null,
  memory: { usedBytes: 1024 ** 3, budgetBytes: 20 * 1024 ** 3 },
  models: [model('coder-7b', 'loaded'), model('coder-14b', 'unloaded')],
} as FleetWorker;

describe('weft admin fleet rows', () => {
  it("shows the worker's budget, GPU and last beat once, on its first row, and each model's state on its own", () => {
    const [first, second] = rows(worker, Date.parse('2026-11-28T10:00:13.000Z'));
    expect(first).toEqual(['inference-1', 'gpu-a', 'ready', 'coder-7b', '2/2', '0', '0', 'loaded', '1024.0 MiB', 'cpu', '1024.0 MiB/20480.0 MiB', '3 s ago']);
    expect(second).toEqual(['', '', '', 'coder-14b', '2/2', '0', '0', 'unloaded', '1024.0 MiB', '', '', '']);
  });
});
