import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AppError, ErrorCode, Routes, type ServiceHeartbeat, type ToolCallRequest } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { NatsEventBus, connectRpcClient, type RpcClient } from '@weft/messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { rpcFileToolsPort } from '../agent/rpc-ports';
import { ServiceLiveness } from './service-liveness';

const log = createLogger('service-liveness-test', 'silent');
const root = resolve(__dirname, '../../../..');
/** Today's bound for a tools call: what the gateway waited before worker heartbeats. */
const REQUEST_TIMEOUT_MS = 30_000;

/** The real tools worker (apps/tools/src/main.ts) in a process of its own, so it can be SIGKILLed. */
function startToolsProcess(natsUrl: string, workspacesDir: string): ChildProcess {
  return spawn(join(root, 'node_modules/.bin/vite-node'), ['--config', 'bench/vite.config.ts', 'apps/tools/src/main.ts'], {
    cwd: root,
    env: { ...process.env, NATS_URL: natsUrl, WORKSPACES_DIR: workspacesDir, READY_FILE: join(workspacesDir, '.ready'), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

describe('a tools worker killed while a call is in flight', () => {
  let nats: StartedService;
  let bus: NatsEventBus;
  let rpc: { client: RpcClient; close: () => Promise<void> | void };
  let liveness: ServiceLiveness;
  let dir: string;
  let worker: ChildProcess | undefined;

  beforeAll(async () => {
    nats = await startNats();
    dir = await mkdtemp(join(tmpdir(), 'weft-service-liveness-'));
    bus = await NatsEventBus.connect(nats.url, 'gateway-service-liveness', log);
    liveness = new ServiceLiveness(log);
    bus.subscribe(Routes.toolsWorkerAnnounced, (heartbeat) => liveness.apply('tools', heartbeat));
    await bus.flush();
    rpc = await connectRpcClient(nats.url, REQUEST_TIMEOUT_MS);
  }, 60_000);

  afterAll(async () => {
    if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
    liveness?.close();
    await rpc?.close();
    await bus?.close();
    await nats?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Resolves with the next heartbeat on the tools subject. */
  function nextBeat(): Promise<ServiceHeartbeat> {
    return new Promise((resolve) => {
      const sub = bus.subscribe(Routes.toolsWorkerAnnounced, (heartbeat) => {
        sub.unsubscribe();
        resolve(heartbeat);
      });
    });
  }

  it('fails the call with TOOLS.UNAVAILABLE within seconds, not after the 30 s request timeout', async () => {
    const beat = nextBeat();
    worker = startToolsProcess(nats.url, dir);
    const heartbeat = await beat;
    expect(liveness.live('tools')).toEqual([heartbeat.workerId]);
    const files = rpcFileToolsPort(rpc.client, liveness);
    const list: ToolCallRequest = { workspaceId: 'ws_missing01', tool: 'list_directory', arguments: { path: '.', recursive: false, includeIgnored: false } };
    // The worker answers while it lives (its subscriptions are up some moments after its first beat).
    await expect.poll(() => files.call(list).catch((e: AppError) => e.code), { timeout: 20_000 })
      .toBe(ErrorCode.WorkspaceNotFound);

    // Frozen first, so the call is delivered to it and certainly unanswered; then killed.
    worker.kill('SIGSTOP');
    const call = files.call(list);
    const failure = call.then(() => undefined, (error: unknown) => error);
    // A round trip on the same connection (nobody serves this subject: answered at once) proves
    // the server has handed the call to the frozen worker before it dies.
    await expect(rpc.client.request(Routes.sandboxImages, {}, { timeoutMs: 5_000 })).rejects.toMatchObject({ code: ErrorCode.NoResponders });
    const killedAt = performance.now();
    worker.kill('SIGKILL');
    await once(worker, 'exit');

    const error = await failure;
    const afterMs = performance.now() - killedAt;
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe(ErrorCode.ToolsUnavailable);
    expect((error as AppError).retryable).toBe(true);
    console.info(`tools call failed ${Math.round(afterMs)} ms after its worker was killed`);
    expect(afterMs).toBeLessThan(10_000);
    expect(liveness.live('tools')).toEqual([]);
  }, 90_000);
});
