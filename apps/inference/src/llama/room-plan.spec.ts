import { describe, expect, it } from 'vitest';
import { planRoom, type ResidentModel } from './room-plan';

const MIB = 1024 * 1024;
const model = (id: string, mib: number, lastUsedAt: number, extra: Partial<ResidentModel> = {}): ResidentModel => ({
  id,
  bytes: mib * MIB,
  pinned: false,
  busy: false,
  lastUsedAt,
  ...extra,
});

describe('planRoom', () => {
  it('loads beside the resident models when the budget has room', () => {
    expect(planRoom([model('a', 40, 1)], 50 * MIB, 100 * MIB)).toEqual({ kind: 'fits' });
  });

  it('evicts the least recently used idle models, only as many as it takes', () => {
    const resident = [model('new', 30, 3), model('old', 30, 1), model('mid', 30, 2)];
    expect(planRoom(resident, 50 * MIB, 100 * MIB)).toEqual({ kind: 'evict', ids: ['old', 'mid'] });
    expect(planRoom(resident, 35 * MIB, 100 * MIB)).toEqual({ kind: 'evict', ids: ['old'] });
  });

  it('never evicts a pinned or a busy model', () => {
    const resident = [model('pinned', 30, 0, { pinned: true }), model('busy', 30, 1, { busy: true }), model('idle', 30, 2)];
    expect(planRoom(resident, 40 * MIB, 100 * MIB)).toEqual({ kind: 'evict', ids: ['idle'] });
    expect(planRoom(resident, 60 * MIB, 100 * MIB)).toEqual({ kind: 'wait' });
  });

  it('refuses a model larger than the budget, or than what the pinned models leave', () => {
    const tooBig = planRoom([], 200 * MIB, 100 * MIB);
    expect(tooBig).toEqual({ kind: 'never', reason: 'it needs 200.0 MiB and the budget is 100.0 MiB' });
    const pinned = planRoom([model('p', 80, 0, { pinned: true })], 30 * MIB, 100 * MIB);
    expect(pinned).toMatchObject({ kind: 'never', reason: expect.stringContaining('pinned models hold 80.0 MiB') });
  });
});
