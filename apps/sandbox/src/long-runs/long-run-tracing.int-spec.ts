import { randomBytes } from 'node:crypto';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { Jobs, type LongRunJob, Queues, runOutputMessageSchema, sandboxRunOutputSubject } from '@weft/contracts';
import { startTracing, type Tracing } from '@weft/telemetry';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, startRedis, type StartedService } from '../../../../test/support/containers';
import { waitFor } from '../testing/attack-helpers';
import { startSandboxHarness, type SandboxHarness } from '../testing/sandbox-harness';

describe('a long run joins the trace of the tool call that queued it (real Docker, NATS and Redis)', () => {
  let nats: StartedService;
  let redis: StartedService;
  let sandbox: SandboxHarness;
  let bus: NatsConnection;
  let connection: Redis;
  let queue: Queue;
  let tracing: Tracing;
  const exporter = new InMemorySpanExporter();
  const prefix = `test-${randomBytes(4).toString('hex')}:`;

  beforeAll(async () => {
    [nats, redis] = await Promise.all([startNats(), startRedis()]);
    tracing = startTracing('weft-sandbox', {}, exporter);
    sandbox = await startSandboxHarness(nats.url, { REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix, SANDBOX_POOL_SIZE: '0' });
    bus = await connect({ servers: [nats.url] });
    connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    queue = new Queue(Queues.sandboxRuns, { connection, prefix: `${prefix}bull` });
  });
  afterAll(async () => {
    await queue?.close();
    await connection?.quit();
    await bus?.drain();
    await sandbox?.close();
    await tracing?.shutdown();
    await Promise.all([nats?.stop(), redis?.stop()]);
  });

  /** Queues the run; resolves with how it ended once its job is done (and its span with it). */
  async function runToEnd(job: LongRunJob): Promise<string> {
    const subscription = bus.subscribe(sandboxRunOutputSubject(job.runId));
    await bus.flush();
    const queued = await queue.add(Jobs.longRun, job, { jobId: job.runId, attempts: 1 });
    let ended = 'unsubscribed';
    for await (const raw of subscription) {
      const message = runOutputMessageSchema.parse(JSON.parse(new TextDecoder().decode(raw.data)));
      if (message.type === 'result' || message.type === 'failed') {
        ended = message.type;
        break;
      }
    }
    subscription.unsubscribe();
    await waitFor('the job to complete', async () => (await queue.getJobState(queued.id ?? job.runId)) === 'completed', 30_000);
    return ended;
  }

  it('runs the job in a consumer span whose parent is the context the job carries', async () => {
    const [traceId, spanId] = [randomBytes(16).toString('hex'), randomBytes(8).toString('hex')];
    const runId = `run_${randomBytes(6).toString('hex')}`;
    const request = { mode: 'command' as const, workspaceId: await sandbox.newWorkspace(), command: 'echo traced', timeoutMs: 60_000 };
    expect(await runToEnd({ kind: Jobs.longRun, runId, request, trace: { traceparent: `00-${traceId}-${spanId}-01` } })).toBe('result');
    await tracing.flush();
    const spans = exporter.getFinishedSpans().filter((s) => s.name === `${Queues.sandboxRuns} process`);
    expect(spans).toHaveLength(1);
    expect(spans[0]?.spanContext().traceId).toBe(traceId);
    expect(spans[0]?.parentSpanContext?.spanId).toBe(spanId);
  });

  it('makes no span for a job that carries no context', async () => {
    exporter.reset();
    const runId = `run_${randomBytes(6).toString('hex')}`;
    const request = { mode: 'command' as const, workspaceId: await sandbox.newWorkspace(), command: 'echo untraced', timeoutMs: 60_000 };
    expect(await runToEnd({ kind: Jobs.longRun, runId, request })).toBe('result');
    await tracing.flush();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
