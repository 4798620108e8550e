import { ErrorCode } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { SequencePool } from './sequence-pool';

describe('SequencePool', () => {
  it('makes a request beyond the pool wait until a sequence is released', async () => {
    const pool = new SequencePool(['s1']);
    const first = await pool.acquire();
    let second: string | undefined;
    const waiting = pool.acquire().then((lease) => (second = lease.sequence));
    await Promise.resolve();
    expect(pool.waiting).toBe(1);
    expect(second).toBeUndefined();
    first.release();
    await waiting;
    expect(second).toBe('s1');
  });

  it('gives a session back the sequence that holds its earlier turns', async () => {
    const pool = new SequencePool(['s1', 's2']);
    const a = await pool.acquire('session-a');
    const b = await pool.acquire('session-b');
    a.release();
    b.release();
    const again = await pool.acquire('session-b');
    expect(again).toMatchObject({ sequence: b.sequence, reused: true, evictedSessionId: undefined });
  });

  it('prefers an empty sequence, then evicts the least recently used session', async () => {
    const pool = new SequencePool(['s1', 's2', 's3']);
    for (const session of ['a', 'b']) (await pool.acquire(session)).release();
    const c = await pool.acquire('c');
    expect(c).toMatchObject({ sequence: 's3', reused: false, evictedSessionId: undefined });
    c.release();
    (await pool.acquire('a')).release(); // a is now more recent than b
    const d = await pool.acquire('d');
    expect(d).toMatchObject({ sequence: 's2', evictedSessionId: 'b' });
    expect(pool.stats()).toMatchObject({ total: 3, free: 2, sessions: ['a', 'c', 'd'] });
  });

  it('refuses with INFERENCE.BUSY once maxQueue requests already wait', async () => {
    const pool = new SequencePool(['s1'], 1);
    const held = await pool.acquire('a');
    const queued = pool.acquire('b');
    await expect(pool.acquire('c')).rejects.toMatchObject({ code: ErrorCode.InferenceBusy, retryable: true, details: { maxQueue: 1 } });
    held.release();
    await expect(queued).resolves.toMatchObject({ sequence: 's1', evictedSessionId: 'a' });
  });

  it('drops a waiter whose request is aborted', async () => {
    const pool = new SequencePool(['s1']);
    await pool.acquire();
    const abort = new AbortController();
    const waiting = pool.acquire(undefined, abort.signal);
    abort.abort(new Error('client went away'));
    await expect(waiting).rejects.toThrow('client went away');
    expect(pool.waiting).toBe(0);
  });
});
