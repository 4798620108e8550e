import { randomBytes } from 'node:crypto';
import {
  ErrorCode,
  Jobs,
  type LongRunJob,
  Queues,
  type RunOutputMessage,
  Routes,
  runOutputMessageSchema,
  sandboxRunOutputSubject,
} from '@weft/contracts';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, startRedis, type StartedService } from '../../../../test/support/containers';
import { waitFor } from '../testing/attack-helpers';
import { startSandboxHarness, type SandboxHarness } from '../testing/sandbox-harness';

interface Received {
  message: RunOutputMessage;
  at: number;
}

describe('long runs through the queue (real Docker, NATS and Redis)', () => {
  let nats: StartedService;
  let redis: StartedService;
  let sandbox: SandboxHarness;
  let bus: NatsConnection;
  let connection: Redis;
  let queue: Queue;
  const prefix = `test-${randomBytes(4).toString('hex')}:`;

  beforeAll(async () => {
    [nats, redis] = await Promise.all([startNats(), startRedis()]);
    sandbox = await startSandboxHarness(nats.url, {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: prefix,
      SANDBOX_POOL_SIZE: '0',
      SANDBOX_TIMEOUT_MS: '120000',
    });
    bus = await connect({ servers: [nats.url] });
    connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    queue = new Queue(Queues.sandboxRuns, { connection, prefix: `${prefix}bull` });
  });
  afterAll(async () => {
    await queue?.close();
    await connection?.quit();
    await bus?.drain();
    await sandbox?.close();
    await Promise.all([nats?.stop(), redis?.stop()]);
  });

  /** Subscribes to the run's subject, then queues it; resolves with every message up to the last. */
  async function start(command: string, workspaceId: string, runId = `run_${randomBytes(6).toString('hex')}`) {
    const received: Received[] = [];
    const subscription = bus.subscribe(sandboxRunOutputSubject(runId));
    const done = (async () => {
      for await (const raw of subscription) {
        const message = runOutputMessageSchema.parse(JSON.parse(new TextDecoder().decode(raw.data)));
        received.push({ message, at: performance.now() });
        if (message.type === 'result' || message.type === 'failed') break;
      }
      subscription.unsubscribe();
      return received;
    })();
    await bus.flush();
    const job: LongRunJob = { kind: Jobs.longRun, runId, request: { mode: 'command', workspaceId, command, timeoutMs: 120_000 } };
    await queue.add(Jobs.longRun, job, { jobId: runId, attempts: 1 });
    return { runId, received, done };
  }

  it('streams a long command\'s output in chunks before it ends, then its result', async () => {
    const workspaceId = await sandbox.newWorkspace();
    const { done } = await start('for i in 1 2 3; do echo "tick $i"; sleep 1; done; echo oops >&2', workspaceId);
    const messages = await done;
    const types = messages.map((r) => r.message.type);
    expect(types[0]).toBe('started');
    expect(types.at(-1)).toBe('result');
    const chunks = messages.filter((r) => r.message.type === 'chunk');
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    const last = messages.at(-1);
    // The first tick arrived while the run still had two seconds to go.
    expect(last!.at - chunks[0]!.at).toBeGreaterThan(1_500);
    const stdout = chunks.flatMap((r) => (r.message.type === 'chunk' && r.message.stream === 'stdout' ? [r.message.text] : []));
    expect(stdout.join('')).toBe('tick 1\ntick 2\ntick 3\n');
    expect(last!.message).toMatchObject({ type: 'result', result: { exitCode: 0, stdout: 'tick 1\ntick 2\ntick 3\n', stderr: 'oops\n' } });
  });

  it('kills and removes the container promptly when the run is cancelled', async () => {
    const workspaceId = await sandbox.newWorkspace();
    const { runId, received, done } = await start('echo started; sleep 300', workspaceId);
    await waitFor('the run to print', async () => received.some((r) => r.message.type === 'chunk'), 60_000);
    expect(await sandbox.containers()).toHaveLength(1);
    const cancelledAt = performance.now();
    bus.publish(Routes.sandboxCancel.subject, JSON.stringify({ runId }));
    const messages = await done;
    expect(messages.at(-1)?.message).toMatchObject({ type: 'failed', error: { code: ErrorCode.SandboxCancelled } });
    await waitFor('the container to be removed', async () => (await sandbox.containers()).length === 0, 10_000);
    expect(performance.now() - cancelledAt).toBeLessThan(10_000);
  });

  it('never starts a run cancelled while it waited in the queue', async () => {
    const workspaceId = await sandbox.newWorkspace();
    const runId = `run_${randomBytes(6).toString('hex')}`;
    bus.publish(Routes.sandboxCancel.subject, JSON.stringify({ runId }));
    await bus.flush();
    const { done } = await start('echo should-not-run', workspaceId, runId);
    const messages = await done;
    expect(messages.map((r) => r.message.type)).toEqual(['failed']);
    expect(messages[0]?.message).toMatchObject({ error: { code: ErrorCode.SandboxCancelled } });
  });
});
