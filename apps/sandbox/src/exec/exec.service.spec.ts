import { loadConfig, sandboxConfigSchema } from '@weft/config';
import { ErrorCode } from '@weft/contracts';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type {
  ContainerRuntime,
  ContainerSpec,
  EngineInfo,
  RunOptions,
  RunOutcome,
  WarmContainer,
} from '../docker/container-runtime';
import { WarmContainerGoneError } from '../docker/container-runtime';
import { WarmPool } from '../pool/warm-pool';
import { EgressNetwork } from './egress-network';
import { ExecService } from './exec.service';
import { WorkspaceLocator } from './workspace-locator';
import { ImageCatalogue } from '../images/image-catalogue';
import { ProxyNetworks } from '../sessions/proxy-networks';
import { CacheQuota } from '../cache/cache-quota';
import { SessionContainers } from '../sessions/session-containers';
import { SandboxMetrics } from '../metrics/sandbox-metrics';

const outcome: RunOutcome = {
  exitCode: 0,
  stdout: 'ok',
  stderr: '',
  stdoutTruncated: false,
  stderrTruncated: false,
  timedOut: false,
  oomKilled: false,
  durationMs: 5,
  stdoutCutBytes: 0,
  stderrCutBytes: 0,
};

class FakeRuntime implements ContainerRuntime {
  readonly runs: Array<{ spec: ContainerSpec; options: RunOptions }> = [];
  readonly warmRuns: Array<{ id: string; argv: string[]; options: RunOptions }> = [];
  private started = 0;
  warmGone = false;
  async run(spec: ContainerSpec, options: RunOptions): Promise<RunOutcome> {
    this.runs.push({ spec, options });
    return outcome;
  }
  async startWarm(): Promise<WarmContainer> {
    return { id: `warm-${++this.started}`, stopped: new Promise(() => {}) };
  }
  async runWarm(container: WarmContainer, argv: string[], options: RunOptions): Promise<RunOutcome> {
    if (this.warmGone) throw new WarmContainerGoneError(container.id);
    this.warmRuns.push({ id: container.id, argv, options });
    return outcome;
  }
  async discard(): Promise<void> {}
  async describeEngine(): Promise<EngineInfo> {
    return { runtimes: ['runc'], securityOptions: ['name=seccomp,profile=default'] };
  }
  async volumeMountpoint(): Promise<string> {
    return '/unused';
  }
  async removeExpired(): Promise<number> {
    return 0;
  }
  async removeOwn(): Promise<void> {}
  async removePredecessors(): Promise<number> {
    return 0;
  }
  readonly networks: string[] = [];
  async ensureEgressNetwork(name: string): Promise<void> {
    this.networks.push(name);
  }
  // Session containers are exercised against the real engine (session-containers.int-spec.ts).
  ensureNamed = unused;
  listLabelled = unused;
  exec = unused;
  openChannel = unused;
  whenStopped = unused;
  removeContainer = unused;
  ensureVolume = unused;
  ensureProxyNetwork = unused;
  findOwnProxy = unused;
}

function unused(): Promise<never> {
  return Promise.reject(new Error('unused in these tests'));
}

async function setup(poolSize = 0) {
  const config = loadConfig(sandboxConfigSchema, {
    SANDBOX_TIMEOUT_MS: '7000',
    SANDBOX_OUTPUT_MAX_BYTES: '99',
    SANDBOX_POOL_SIZE: String(poolSize),
  });
  const logger = pino({ level: 'silent' });
  const runtime = new FakeRuntime();
  const pool = new WarmPool(
    runtime,
    () => ({}) as ContainerSpec,
    { size: poolSize, maxSize: poolSize, demandWindowMs: 60_000, idleMs: 60_000, maxRunMs: 7_000 },
    logger,
  );
  pool.onApplicationBootstrap();
  await pool.whenFull();
  const egress = new EgressNetwork(config, runtime, logger);
  const locator = new WorkspaceLocator(config, runtime);
  const catalogue = new ImageCatalogue(config);
  const sessions = new SessionContainers(config, runtime, locator, catalogue, new ProxyNetworks(config, runtime), egress, new CacheQuota(config, runtime, logger), logger);
  const service = new ExecService(config, runtime, locator, pool, egress, catalogue, sessions, logger, new SandboxMetrics(config.WORKSPACES_DIR));
  return { runtime, service, pool };
}

describe('ExecService', () => {
  it('uses the configured timeout and output cap when the request sets none', async () => {
    const { runtime, service } = await setup();
    const result = await service.run({ mode: 'code', language: 'python', code: 'print(1)', network: 'none' });
    expect(result.stdout).toBe('ok');
    expect(runtime.runs[0]?.options).toEqual({ stdin: undefined, timeoutMs: 7000, outputMaxBytes: 99 });
  });

  it('passes the request timeout and stdin through', async () => {
    const { runtime, service } = await setup();
    await service.run({ mode: 'code', network: 'none', language: 'bash', code: 'cat', stdin: 'in', timeoutMs: 1500 });
    expect(runtime.runs[0]?.options).toMatchObject({ stdin: 'in', timeoutMs: 1500 });
    expect(runtime.runs[0]?.spec.openStdin).toBe(true);
  });

  it('hands a snippet without a workspace to a warm container', async () => {
    const { runtime, service, pool } = await setup(1);
    await service.run({ mode: 'code', network: 'none', language: 'lua', code: 'print(1)', stdin: 'in' });
    expect(runtime.warmRuns).toEqual([
      { id: 'warm-1', argv: ['lua5.4', '-e', 'print(1)'], options: { stdin: 'in', timeoutMs: 7000, outputMaxBytes: 99 } },
    ]);
    expect(runtime.runs).toEqual([]);
    await pool.close();
  });

  it('starts cold when the warm container it took had already stopped', async () => {
    const { runtime, service, pool } = await setup(1);
    runtime.warmGone = true;
    const result = await service.run({ mode: 'code', network: 'none', language: 'python', code: 'print(1)' });
    expect(result.stdout).toBe('ok');
    expect(runtime.runs).toHaveLength(1);
    await pool.close();
  });

  it('starts cold when the pool is empty', async () => {
    const { runtime, service, pool } = await setup(1);
    await pool.close();
    await service.run({ mode: 'code', network: 'none', language: 'python', code: 'print(1)' });
    expect(runtime.runs).toHaveLength(1);
    expect(pool.stats).toEqual({ hits: 0, misses: 0 });
  });

  it('refuses code with a NUL byte before starting anything', async () => {
    const { runtime, service } = await setup();
    await expect(service.run({ mode: 'code', network: 'none', language: 'bash', code: 'echo a\0b' })).rejects.toMatchObject({
      code: ErrorCode.ValidationFailed,
    });
    expect(runtime.runs).toEqual([]);
  });

  it('starts an egress snippet cold on the egress network, never in a pooled container', async () => {
    const { runtime, service, pool } = await setup(1);
    await service.run({ mode: 'code', language: 'python', code: 'print(1)', network: 'egress' });
    expect(runtime.warmRuns).toEqual([]);
    expect(runtime.runs[0]?.spec.network).toBe('weft-sandbox-egress');
    expect(runtime.networks).toEqual(['weft-sandbox-egress']);
    await pool.close();
  });

  it('gives a run without egress no network', async () => {
    const { runtime, service } = await setup();
    await service.run({ mode: 'code', language: 'python', code: 'print(1)', network: 'none' });
    expect(runtime.runs[0]?.spec.network).toBeUndefined();
    expect(runtime.networks).toEqual([]);
  });

  it('hands the cancel signal and the output listener to the runtime', async () => {
    const { runtime, service } = await setup();
    const signal = new AbortController().signal;
    const onOutput = () => undefined;
    await service.run({ mode: 'code', language: 'python', code: 'print(1)', network: 'none' }, { signal, onOutput });
    expect(runtime.runs[0]?.options).toMatchObject({ signal, onOutput });
  });
});
