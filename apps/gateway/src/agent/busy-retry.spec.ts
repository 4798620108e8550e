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

  it('stops waiting when the turn is cancelled', async () => {
    const controller = new AbortController();
    const worker = busyThen(Number.POSITIVE_INFINITY, []);
    const sleep = async () => controller.abort();
    expect(await collect(retryWhileBusy(worker.start, { waitMs: 60_000, signal: controller.signal, sleep }))).toEqual([]);
    expect(worker.calls()).toBe(1);
  });
});
