import { describe, expect, it } from 'vitest';
import type { FleetWorker } from '../account/types';
import { describeGpu, heartbeatAgeSeconds, summarizeFleet } from './fleet';

const worker = (id: string, status: string, models: Array<[string, boolean, number, number]>, inFlight = 0): FleetWorker => ({
  workerId: id,
  host: 'gpu-1',
  status,
  startedAt: '2026-11-24T10:00:00Z',
  lastHeartbeatAt: '2026-11-24T12:00:00Z',
  inFlight,
  gpu: null,
  models: models.map(([modelId, loaded, freeSequences, queued]) => ({ id: modelId, loaded, sequences: 4, freeSequences, queued, cachedSessions: 0 })),
});

describe('the fleet', () => {
  it('sums free sequences, queued requests and work in flight, and names the loaded models once', () => {
    const fleet = [worker('a', 'ready', [['qwen', true, 3, 0], ['tiny', false, 0, 0]], 1), worker('b', 'draining', [['qwen', true, 0, 2]], 4)];
    expect(summarizeFleet(fleet)).toEqual({ workers: 2, notReady: 1, models: ['qwen'], freeSequences: 3, queued: 2, inFlight: 5 });
    expect(summarizeFleet([])).toEqual({ workers: 0, notReady: 0, models: [], freeSequences: 0, queued: 0, inFlight: 0 });
  });

  it('shows GPU memory in GiB with the share used, and a CPU worker as such', () => {
    expect(describeGpu({ type: 'NVIDIA H100', vramTotalBytes: 80 * 1024 ** 3, vramUsedBytes: 20 * 1024 ** 3 })).toBe('NVIDIA H100: 20.0 / 80.0 GiB (25%)');
    expect(describeGpu(null)).toBe('CPU');
  });

  it('counts the seconds since the last heartbeat', () => {
    expect(heartbeatAgeSeconds('2026-11-24T12:00:00Z', Date.parse('2026-11-24T12:00:04.6Z'))).toBe(5);
    expect(heartbeatAgeSeconds('not a time')).toBeNull();
  });
});
