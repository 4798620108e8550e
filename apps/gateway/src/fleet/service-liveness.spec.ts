import { AppError, ErrorCode, type ServiceHeartbeat } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceLiveness } from './service-liveness';

const log = createLogger('service-liveness-spec', 'silent');
// 100 ms beats, 300 ms of silence: a loaded CI box stalls this process for tens of milliseconds.
const INTERVAL_MS = 100;

function beat(workerId: string, startedAt = 'a'): ServiceHeartbeat {
  return { workerId, intervalMs: INTERVAL_MS, startedAt, sentAt: new Date().toISOString() };
}

/** A worker that beats until `stop` is called. */
function beating(liveness: ServiceLiveness, workerId: string): { stop: () => void } {
  liveness.apply('sandbox', beat(workerId));
  const timer = setInterval(() => liveness.apply('sandbox', beat(workerId)), INTERVAL_MS);
  return { stop: () => clearInterval(timer) };
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('ServiceLiveness', () => {
  let liveness: ServiceLiveness;
  const workers: { stop: () => void }[] = [];
  afterEach(() => {
    for (const worker of workers.splice(0)) worker.stop();
    liveness.close();
  });

  it('lets a slow call run on while its worker keeps beating', async () => {
    liveness = new ServiceLiveness(log);
    workers.push(beating(liveness, 'w1'));
    const reply = deferred<string>();
    const guarded = liveness.guard('sandbox', reply.promise);
    // Ten times the silence that drops a worker, waited out on the worker's own beats.
    await new Promise<void>((resolve) => {
      let beats = 0;
      const timer = setInterval(() => ++beats >= 30 && (clearInterval(timer), resolve()), INTERVAL_MS);
    });
    reply.resolve('done');
    await expect(guarded).resolves.toBe('done');
  });

  it('fails a call only once every worker that could have taken it went silent', async () => {
    liveness = new ServiceLiveness(log);
    const [w1, w2] = [beating(liveness, 'w1'), beating(liveness, 'w2')];
    workers.push(w1, w2);
    const guarded = liveness.guard('sandbox', new Promise<never>(() => undefined));
    const outcome = guarded.catch((error: unknown) => error);
    w1.stop();
    await expect.poll(() => liveness.live('sandbox')).toEqual(['w2']);
    w2.stop();
    const error = (await outcome) as AppError;
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe(ErrorCode.SandboxUnavailable);
    expect(error.retryable).toBe(true);
  });

  it('fails a call when its worker comes back as a new process under the same id', async () => {
    liveness = new ServiceLiveness(log);
    liveness.apply('tools', beat('w1', 'first'));
    const outcome = liveness.guard('tools', new Promise<never>(() => undefined)).catch((error: unknown) => error);
    liveness.apply('tools', beat('w1', 'second'));
    expect(((await outcome) as AppError).code).toBe(ErrorCode.ToolsUnavailable);
  });

  it('leaves a call to its own timeout while no worker of the service was heard', async () => {
    liveness = new ServiceLiveness(log);
    const reply = deferred<string>();
    const guarded = liveness.guard('tools', reply.promise);
    liveness.apply('tools', beat('late'));
    reply.resolve('answered');
    await expect(guarded).resolves.toBe('answered');
  });

  it('fails a call sent while no worker of a service that beats is alive, after one silence', async () => {
    liveness = new ServiceLiveness(log);
    liveness.apply('tools', beat('gone'));
    await expect.poll(() => liveness.live('tools')).toEqual([]);
    const error = (await liveness.guard('tools', new Promise<never>(() => undefined)).catch((e: unknown) => e)) as AppError;
    expect(error.code).toBe(ErrorCode.ToolsUnavailable);
    expect(error.message).toMatch(/^No tools worker/);
  });
});
