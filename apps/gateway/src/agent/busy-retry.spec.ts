import { AppError, ErrorCode } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { retryWhileBusy } from './busy-retry';

const busy = () => new AppError(ErrorCode.InferenceBusy, 'All 3 sequences are busy and 16 requests already wait', {}, true);

/** A clock that moves only when the retry sleeps, and the pauses it took. */
function fakeTime() {
  let at = 0;
  const pauses: number[] = [];
  return { now: () => at, sleep: async (ms: number) => void (pauses.push(ms), (at += ms)), pauses };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** A worker that is busy `times` times, then streams the tokens. */
function busyThen(times: number, tokens: string[]) {
  let calls = 0;
  const start = async function* () {
    calls++;
    if (calls <= times) throw busy();
    yield* tokens;
  };
  return { start, calls: () => calls };
}

describe('a generation that finds every worker busy', () => {
  it('is asked again after growing pauses until a worker takes it, and streams once', async () => {
    const time = fakeTime();
    const worker = busyThen(4, ['Hel', 'lo']);
    expect(await collect(retryWhileBusy(worker.start, { waitMs: 60_000, ...time }))).toEqual(['Hel', 'lo']);
    expect(worker.calls()).toBe(5);
    // Doubling from 250 ms, each with up to half taken off as jitter.
    expect(time.pauses.map((ms, i) => ms >= 125 * 2 ** i && ms <= 250 * 2 ** i)).toEqual([true, true, true, true]);
  });

  it('fails with the busy error once the wait is over', async () => {
    const time = fakeTime();
    const worker = busyThen(Number.POSITIVE_INFINITY, []);
    await expect(collect(retryWhileBusy(worker.start, { waitMs: 10_000, ...time }))).rejects.toMatchObject({ code: ErrorCode.InferenceBusy });
    expect(time.now()).toBeLessThanOrEqual(10_000);
    expect(worker.calls()).toBeGreaterThan(3);
  });

  it('passes any other error, or a busy one after tokens streamed, straight on', async () => {
    const time = fakeTime();
    const lost = async function* () {
      yield 'a';
      throw busy();
    };
    await expect(collect(retryWhileBusy(lost, { waitMs: 60_000, ...time }))).rejects.toMatchObject({ code: ErrorCode.InferenceBusy });
    const failed = async function* (): AsyncGenerator<string> {
      yield* [];
      throw new AppError(ErrorCode.UnknownModel, 'no such model');
    };
    await expect(collect(retryWhileBusy(failed, { waitMs: 60_000, ...time }))).rejects.toMatchObject({ code: ErrorCode.UnknownModel });
    expect(time.pauses).toEqual([]);
  });

  it('waits for a worker while none is up (no responders: its node died, the new one is starting)', async () => {
    const time = fakeTime();
    let calls = 0;
    const start = async function* () {
      calls++;
      if (calls <= 3) throw new AppError(ErrorCode.NoResponders, 'No responders for weft.inference.v1.generate', {}, true);
      yield 'back';
    };
    expect(await collect(retryWhileBusy(start, { waitMs: 60_000, ...time }))).toEqual(['back']);
    expect(calls).toBe(4);
  });

  it('fails at once while NATS itself is unreachable from this gateway', async () => {
    const time = fakeTime();
    const start = async function* (): AsyncGenerator<string> {
      yield* [];
      throw new AppError(ErrorCode.NoResponders, 'Request not sent: NATS is unreachable', { natsUnreachable: true }, true);
    };
    await expect(collect(retryWhileBusy(start, { waitMs: 60_000, ...time }))).rejects.toMatchObject({ code: ErrorCode.NoResponders });
    expect(time.pauses).toEqual([]);
  });

  it('tries again when the worker it was sent to vanished before answering', async () => {
    const time = fakeTime();
    let calls = 0;
    const start = async function* () {
      calls++;
      if (calls === 1) throw new AppError(ErrorCode.WorkerLost, 'Worker w1 stopped heartbeating', {}, true);
      yield 'elsewhere';
    };
    expect(await collect(retryWhileBusy(start, { waitMs: 60_000, ...time }))).toEqual(['elsewhere']);
  });

  it('fails with no responders once the wait for a worker is over', async () => {
    const time = fakeTime();
    const start = async function* (): AsyncGenerator<string> {
      yield* [];
      throw new AppError(ErrorCode.NoResponders, 'No responders', {}, true);
    };
    await expect(collect(retryWhileBusy(start, { waitMs: 5_000, ...time }))).rejects.toMatchObject({ code: ErrorCode.NoResponders });
    expect(time.now()).toBeLessThanOrEqual(5_000);
  });

  it('stops waiting when the turn is cancelled', async () => {
    const controller = new AbortController();
    const worker = busyThen(Number.POSITIVE_INFINITY, []);
    const sleep = async () => controller.abort();
    expect(await collect(retryWhileBusy(worker.start, { waitMs: 60_000, signal: controller.signal, sleep }))).toEqual([]);
    expect(worker.calls()).toBe(1);
  });
});
