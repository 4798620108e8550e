import { ErrorCode } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { SequencePool, type PoolUser } from './sequence-pool';

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
    const a = await pool.acquire({ sessionId: 'session-a' });
    const b = await pool.acquire({ sessionId: 'session-b' });
    a.release();
    b.release();
    const again = await pool.acquire({ sessionId: 'session-b' });
    expect(again).toMatchObject({ sequence: b.sequence, reused: true, evictedSessionId: undefined });
  });

  it('prefers an empty sequence, then evicts the least recently used session', async () => {
    const pool = new SequencePool(['s1', 's2', 's3']);
    for (const session of ['a', 'b']) (await pool.acquire({ sessionId: session })).release();
    const c = await pool.acquire({ sessionId: 'c' });
    expect(c).toMatchObject({ sequence: 's3', reused: false, evictedSessionId: undefined });
    c.release();
    (await pool.acquire({ sessionId: 'a' })).release(); // a is now more recent than b
    const d = await pool.acquire({ sessionId: 'd' });
    expect(d).toMatchObject({ sequence: 's2', evictedSessionId: 'b' });
    expect(pool.stats()).toMatchObject({ total: 3, free: 2, sessions: ['a', 'c', 'd'] });
  });

  it('evicts a nearly as old session beside a busy sequence, so busy sequences stay consecutive', async () => {
    const pool = new SequencePool(['s0', 's1', 's2', 's3', 's4'], Number.POSITIVE_INFINITY, 0, true);
    const [a, b, c, d, e] = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((sessionId) => pool.acquire({ sessionId })));
    for (const lease of [e, c, d]) lease?.release(); // e least recently used; a and b still running
    // s4 (e) is the oldest, but s2 (c), in the older half too, continues the busy run s0, s1.
    const f = await pool.acquire({ sessionId: 'f' });
    expect(f).toMatchObject({ sequence: 's2', evictedSessionId: 'c' });
    // Only s4 (e) is in the older half now, but it would split the busy ones into two runs (two
    // passes per token): the more recent d on s3 is evicted instead.
    const g = await pool.acquire({ sessionId: 'g' });
    expect(g).toMatchObject({ sequence: 's3', evictedSessionId: 'd' });
    for (const lease of [a, b, f, g]) lease?.release();
  });

  describe('a wave of new sessions after one whose sequences were released a moment before', () => {
    const ids = ['s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7'];
    async function secondWave(evictedSessionsAreSaved: boolean) {
      const pool = new SequencePool(ids, Number.POSITIVE_INFINITY, 0, evictedSessionsAreSaved);
      const first = await Promise.all(ids.map((id) => pool.acquire({ sessionId: `old-${id}` })));
      // Released 6, 7, 0, 1, then 2, 3, 4, 5: the older half wraps round the end of the ids.
      for (const at of [6, 7, 0, 1, 2, 3, 4, 5]) first[at]?.release();
      const wave = [];
      for (const session of ['w1', 'w2', 'w3', 'w4']) wave.push(await pool.acquire({ sessionId: session }));
      return { pool, wave };
    }

    it('stays on consecutive sequences, evicting recent sessions to save a pass where evicted sessions are saved', async () => {
      const { pool, wave } = await secondWave(true);
      // s6 and s7 from the older half; then s0 would start a second run, so the recent s5 and s4.
      expect(wave.map((lease) => lease.sequence)).toEqual(['s6', 's7', 's5', 's4']);
      for (const lease of wave) lease.release();
      // Nothing busy, so every choice is one pass: the least recently used, from the older half.
      expect(await pool.acquire({ sessionId: 'next' })).toMatchObject({ sequence: 's0', evictedSessionId: 'old-s0' });
    });

    it('leaves recent sessions alone where evicting one would cost it its whole prompt again', async () => {
      const { wave } = await secondWave(false);
      expect(wave.map((lease) => lease.sequence)).toEqual(['s6', 's7', 's0', 's1']);
    });
  });

  it('marks a sequence that holds another user\'s tokens as foreign, and only that one', async () => {
    const pool = new SequencePool(['s1']);
    const alice = { id: 'alice' };
    const bob = { id: 'bob' };
    const first = await pool.acquire({ sessionId: 'a1', user: alice });
    expect(first.foreign).toBe(false); // never held anyone's
    first.release();
    const ownAgain = await pool.acquire({ sessionId: 'a1', user: alice });
    expect(ownAgain).toMatchObject({ reused: true, foreign: false });
    ownAgain.release();
    const aliceNew = await pool.acquire({ sessionId: 'a2', user: alice });
    expect(aliceNew).toMatchObject({ evictedSessionId: 'a1', foreign: false });
    aliceNew.release();
    const bobs = await pool.acquire({ sessionId: 'b1', user: bob });
    expect(bobs).toMatchObject({ evictedSessionId: 'a2', foreign: true });
    bobs.release();
    // A session id claimed by another user is not theirs to reuse either.
    expect(await pool.acquire({ sessionId: 'b1', user: alice })).toMatchObject({ reused: true, foreign: true });
  });

  it('gives a new session an old sequence of its own user before another user\'s', async () => {
    const pool = new SequencePool(['s1', 's2', 's3', 's4']);
    const users = ['bob', 'alice', 'bob', 'carol'];
    for (const [i, id] of users.entries()) (await pool.acquire({ sessionId: `${id}-${i}`, user: { id } })).release();
    // Older half: s1 (bob, least recent) and s2 (alice): alice's new session takes her own.
    expect(await pool.acquire({ sessionId: 'alice-new', user: { id: 'alice' } })).toMatchObject({ sequence: 's2', foreign: false });
    // Carol's only sequence is the most recent: she takes the least recently used, bob's.
    expect(await pool.acquire({ sessionId: 'carol-new', user: { id: 'carol' } })).toMatchObject({ sequence: 's1', foreign: true });
  });

  it('refuses with INFERENCE.BUSY once maxQueue requests already wait', async () => {
    const pool = new SequencePool(['s1'], 1);
    const held = await pool.acquire({ sessionId: 'a' });
    const queued = pool.acquire({ sessionId: 'b' });
    await expect(pool.acquire({ sessionId: 'c' })).rejects.toMatchObject({ code: ErrorCode.InferenceBusy, retryable: true, details: { maxQueue: 1, queued: 1 } });
    held.release();
    await expect(queued).resolves.toMatchObject({ sequence: 's1', evictedSessionId: 'a' });
  });

  it('drops a waiter whose request is aborted', async () => {
    const pool = new SequencePool(['s1']);
    await pool.acquire();
    const abort = new AbortController();
    const waiting = pool.acquire({ signal: abort.signal });
    abort.abort(new Error('client went away'));
    await expect(waiting).rejects.toThrow('client went away');
    expect(pool.waiting).toBe(0);
  });

  describe('weighted fair order across users', () => {
    const alice: PoolUser = { id: 'alice' };
    const bob: PoolUser = { id: 'bob', weight: 1 };

    /** Queues one request per label; each records its turn and hands the sequence on at once. */
    function queue(pool: SequencePool<string>, requests: { user?: PoolUser; label: string; signal?: AbortSignal }[], served: string[]) {
      return requests.map(({ user, label, signal }) =>
        pool.acquire({ user, signal }).then((lease) => {
          served.push(label);
          lease.release();
        }),
      );
    }

    it('serves a user with one waiting request before the second of a user with sixteen', async () => {
      const pool = new SequencePool(['s1']);
      const busy = await pool.acquire({ user: alice });
      const served: string[] = [];
      const alices = Array.from({ length: 16 }, (_, i) => ({ user: alice, label: `alice-${i + 1}` }));
      const turns = queue(pool, [...alices, { user: bob, label: 'bob' }], served);
      expect(pool.waiting).toBe(17);
      busy.release();
      await Promise.all(turns);
      expect(served.slice(0, 3)).toEqual(['alice-1', 'bob', 'alice-2']);
    });

    it('gives a weight-2 user twice the turns of a weight-1 user while both wait', async () => {
      const pool = new SequencePool(['s1']);
      const busy = await pool.acquire();
      const served: string[] = [];
      const heavy: PoolUser = { id: 'heavy', weight: 2 };
      const requests = [
        ...Array.from({ length: 12 }, () => ({ user: heavy, label: 'heavy' })),
        ...Array.from({ length: 12 }, () => ({ user: bob, label: 'bob' })),
      ];
      const turns = queue(pool, requests, served);
      busy.release();
      await Promise.all(turns);
      const firstNine = served.slice(0, 9);
      expect(firstNine.filter((l) => l === 'heavy')).toHaveLength(6);
      expect(firstNine.filter((l) => l === 'bob')).toHaveLength(3);
    });

    it('keeps one user\'s requests in arrival order, and requests without a user as one user', async () => {
      const pool = new SequencePool(['s1']);
      const busy = await pool.acquire();
      const served: string[] = [];
      const requests = [
        ...['a1', 'a2', 'a3'].map((label) => ({ user: alice, label })),
        ...['n1', 'n2', 'n3'].map((label) => ({ label })),
      ];
      const turns = queue(pool, requests, served);
      busy.release();
      await Promise.all(turns);
      expect(served).toEqual(['a1', 'n1', 'a2', 'n2', 'a3', 'n3']);
    });

    it('drops an aborted waiter from its user\'s turns and serves the rest in order', async () => {
      const pool = new SequencePool(['s1']);
      const busy = await pool.acquire();
      const served: string[] = [];
      const abort = new AbortController();
      const [a1, aborted, a3, b1] = queue(
        pool,
        [
          { user: alice, label: 'a1' },
          { user: alice, label: 'a2', signal: abort.signal },
          { user: alice, label: 'a3' },
          { user: bob, label: 'b1' },
        ],
        served,
      );
      abort.abort(new Error('client went away'));
      await expect(aborted).rejects.toThrow('client went away');
      expect(pool.waiting).toBe(3);
      busy.release();
      await Promise.all([a1, a3, b1]);
      expect(served).toEqual(['a1', 'b1', 'a3']);
    });

    it('does not count a request that left the queue against its user', async () => {
      const pool = new SequencePool(['s1']);
      const busy = await pool.acquire();
      const served: string[] = [];
      const abort = new AbortController();
      const [gone, ...turns] = queue(
        pool,
        [
          { user: alice, label: 'gone', signal: abort.signal },
          { user: bob, label: 'b1' },
          { user: bob, label: 'b2' },
        ],
        served,
      );
      abort.abort(new Error('client went away'));
      await expect(gone).rejects.toThrow('client went away');
      turns.push(...queue(pool, [{ user: alice, label: 'a1' }], served));
      busy.release();
      await Promise.all(turns);
      expect(served).toEqual(['b1', 'a1', 'b2']);
    });

    it('counts every user against maxQueue and tells the refused one how many of theirs wait', async () => {
      const pool = new SequencePool(['s1'], 2);
      await pool.acquire({ user: alice });
      void pool.acquire({ user: alice });
      void pool.acquire({ user: bob });
      await expect(pool.acquire({ user: alice })).rejects.toMatchObject({
        code: ErrorCode.InferenceBusy,
        details: { sequences: 1, queued: 2, maxQueue: 2, userQueued: 1 },
      });
    });

    it('hands a waiting session the sequence that holds its cache when that one is released', async () => {
      const pool = new SequencePool(['s1', 's2']);
      const turn = await pool.acquire({ sessionId: 'bob-session', user: bob });
      await pool.acquire({ sessionId: 'alice-session', user: alice });
      const next = pool.acquire({ sessionId: 'bob-session', user: bob });
      turn.release();
      await expect(next).resolves.toMatchObject({ sequence: 's1', reused: true, evictedSessionId: undefined });
    });
  });

  describe('express sequences', () => {
    const ada: PoolUser = { id: 'ada' };
    const ben: PoolUser = { id: 'ben' };
    const settled = async <T>(promise: Promise<T>) => {
      let done = false;
      void promise.then(() => (done = true));
      await new Promise((r) => setTimeout(r, 0));
      return done;
    };

    it('starts a user with nothing running at once while another user holds every other sequence', async () => {
      const pool = new SequencePool(['s1', 's2', 'x1'], Number.POSITIVE_INFINITY, 1);
      await pool.acquire({ user: ada });
      await pool.acquire({ user: ada });
      const adaThird = pool.acquire({ user: ada });
      expect(await settled(adaThird)).toBe(false);
      await expect(pool.acquire({ user: ben })).resolves.toMatchObject({ sequence: 'x1' });
      // Ben's second request is an ordinary one: it waits like Ada's.
      expect(await settled(pool.acquire({ user: ben }))).toBe(false);
      expect(pool.stats()).toMatchObject({ total: 3, free: 0, queued: 2 });
    });

    it('gives a released express sequence to the first waiter with nothing running, passing over the others', async () => {
      const pool = new SequencePool(['s1', 's2', 'x1'], Number.POSITIVE_INFINITY, 1);
      await pool.acquire({ user: ada });
      await pool.acquire({ user: ben });
      const express = await pool.acquire({ user: { id: 'dan' } });
      const adaWaits = pool.acquire({ user: ada });
      const benWaits = pool.acquire({ user: ben });
      const cyd = pool.acquire({ user: { id: 'cyd' } });
      express.release();
      // Ada and Ben each still hold a sequence; Cyd, who holds none, arrived last and is served.
      await expect(cyd).resolves.toMatchObject({ sequence: 'x1' });
      expect(await settled(adaWaits)).toBe(false);
      expect(await settled(benWaits)).toBe(false);
    });

    it('always keeps one ordinary sequence, however many express ones are asked for', async () => {
      const pool = new SequencePool(['s1', 's2'], Number.POSITIVE_INFINITY, 5);
      await expect(pool.acquire({ user: ada })).resolves.toMatchObject({ sequence: 's1' });
      expect(await settled(pool.acquire({ user: ada }))).toBe(false);
    });
  });
});
