import { randomBytes } from 'node:crypto';
import { Jobs, type LongRunJob, Queues } from '@weft/contracts';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, startRedis, type StartedService } from '../../../../test/support/containers';
import { waitFor } from '../testing/attack-helpers';
import { startSandboxHarness, type SandboxHarness } from '../testing/sandbox-harness';
import { freePort } from '../../../../test/support/free-port';

describe('sandbox worker metrics (real Docker, NATS and Redis)', () => {
  let nats: StartedService;
  let redis: StartedService;
  let sandbox: SandboxHarness;
  let connection: Redis;
  let queue: Queue;
  let port: number;
  const prefix = `test-${randomBytes(4).toString('hex')}:`;

  beforeAll(async () => {
    [nats, redis] = await Promise.all([startNats(), startRedis()]);
    port = await freePort();
    sandbox = await startSandboxHarness(nats.url, {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: prefix,
      SANDBOX_POOL_SIZE: '1',
      SANDBOX_POOL_MAX: '1',
      METRICS_PORT: String(port),
      METRICS_HOST: '127.0.0.1',
    });
    connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    queue = new Queue(Queues.sandboxRuns, { connection, prefix: `${prefix}bull` });
  });
  afterAll(async () => {
    await queue?.close();
    await connection?.quit();
    await sandbox?.close();
    await Promise.all([nats?.stop(), redis?.stop()]);
  });

  const scrape = async () => {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    return res.text();
  };

  it('counts snippets and session commands by outcome and warm or cold start, and reports the containers it holds', async () => {
    await waitFor('the pool to fill', async () => sandbox.pool.idleCount === 1, 60_000);
    expect(await scrape()).toMatch(/^weft_sandbox_warm_containers 1$/m);

    expect(await sandbox.exec({ mode: 'code', language: 'bash', code: 'exit 3' })).toMatchObject({ exitCode: 3 });
    const workspaceId = await sandbox.newWorkspace();
    const session = { sessionId: `ses_metrics${randomBytes(4).toString('hex')}`, ownerId: 'u_metrics' };
    for (let i = 0; i < 2; i++) {
      expect(await sandbox.exec({ mode: 'command', workspaceId, command: 'true', session })).toMatchObject({ exitCode: 0 });
    }

    const text = await scrape();
    expect(text).toContain('weft_sandbox_runs_total{kind="code",outcome="exit_nonzero"} 1');
    expect(text).toContain('weft_sandbox_run_starts_total{kind="code",start="warm"} 1');
    expect(text).toContain('weft_sandbox_runs_total{kind="command",outcome="ok"} 2');
    // The session's first command starts its container; the second finds it up.
    expect(text).toContain('weft_sandbox_run_starts_total{kind="command",start="cold"} 1');
    expect(text).toContain('weft_sandbox_run_starts_total{kind="command",start="warm"} 1');
    expect(text).toContain('weft_sandbox_run_duration_seconds_count{kind="command"} 2');
    expect(text).toMatch(/^weft_sandbox_session_containers 1$/m);
    expect(text).toMatch(/^weft_sandbox_runs_in_flight\{kind="command"\} 0$/m);
    expect(text).toMatch(/^weft_sandbox_volume_free_bytes\{volume="workspaces"\} [1-9]/m);
    expect(text).toMatch(/^weft_sandbox_process_process_cpu_seconds_total /m);
    await sandbox.release(session.sessionId);
  });

  it('reports long runs by kind, their wait in the queue and the queue by state', async () => {
    const workspaceId = await sandbox.newWorkspace();
    const runId = `run_${randomBytes(6).toString('hex')}`;
    const job: LongRunJob = { kind: Jobs.longRun, runId, request: { mode: 'command', workspaceId, command: 'echo done', timeoutMs: 60_000 } };
    await queue.add(Jobs.longRun, job, { jobId: runId, attempts: 1 });
    await waitFor('the long run to finish', async () => (await queue.getJobState(runId)) === 'completed', 60_000);

    const text = await scrape();
    expect(text).toContain('weft_sandbox_runs_total{kind="long_command",outcome="ok"} 1');
    expect(text).toContain('weft_sandbox_long_run_queue_wait_seconds_count 1');
    expect(text).toMatch(/^weft_sandbox_long_run_jobs\{state="waiting"\} 0$/m);
    expect(text).toMatch(/^weft_sandbox_long_run_jobs\{state="active"\} 0$/m);
  });
});
