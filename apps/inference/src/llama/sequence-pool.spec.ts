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
    expect((await pool.acquire('session-b')).sequence).toBe(b.sequence);
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
