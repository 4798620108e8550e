/**
 * `npm run bench:sandbox`: latency of a python `print(1)` through the sandbox worker's warm pool,
 * through the worker with the pool off, and as a plain `docker run --rm` of the same image with
 * the same limits; one after another and as a burst of concurrent runs. Not a test: it prints
 * a table, and the default pool meeting a burst twice (it grows between); then `run_command` in
 * a session's warm container against cold ones, and `npm ci` with and without the user's package
 * cache (run-command.ts). Needs the Docker engine and the images
 * `npm run images` builds. BENCH_PARTS=pool,commands,npm,runtimes picks the parts (all by
 * default); `runtimes` puts runc and gVisor's runsc side by side (runtimes.ts).
 */
import 'reflect-metadata';
import { cpus } from 'node:os';
import type { INestMicroservice } from '@nestjs/common';
import { loadConfig, sandboxConfigSchema, type SandboxConfig } from '@weft/config';
import { Routes } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { connectRpcClient } from '@weft/messaging';
import { createSandboxApp } from '../../apps/sandbox/src/app';
import { buildContainerSpec } from '../../apps/sandbox/src/exec/container-spec';
import { WarmPool } from '../../apps/sandbox/src/pool/warm-pool';
import { startNats } from '../../test/support/containers';
import { docker, dockerRunArgs } from './docker-run';
import { benchRunCommand } from './run-command';
import { benchRuntimes } from './runtimes';
import { burst, percentile, sequential } from './stats';

const SEQUENTIAL_RUNS = Number(process.env.BENCH_SEQUENTIAL ?? 20);
const BURST_SIZE = Number(process.env.BENCH_BURST ?? 32);
const WARMUP_RUNS = 2;
const CODE = 'print(1)';
const INSTANCE = `bench-${process.pid}`;

interface Figures {
  sequential: number[];
  /** The worker's own `durationMs` of each sequential run: from handing the code over to its end. */
  runOnly?: number[];
  burst: number[];
  burstWallMs: number;
  note?: string;
}

async function main(): Promise<void> {
  const nats = await startNats();
  const env = {
    NATS_URL: nats.url,
    SANDBOX_INSTANCE_ID: INSTANCE,
    LOG_LEVEL: 'warn',
    ...pick(process.env, ['SANDBOX_IMAGE', 'SANDBOX_RUNTIME', 'SANDBOX_MEMORY_MB', 'SANDBOX_CPUS', 'SANDBOX_PIDS_LIMIT', 'SANDBOX_POOL_SIZE', 'SANDBOX_POOL_MAX']),
  };
  const parts = new Set((process.env.BENCH_PARTS ?? 'pool,commands,npm,runtimes').split(','));
  try {
    if (parts.has('runtimes')) await benchRuntimes(nats.url);
    if (parts.has('pool')) await benchPool(env);
    await benchRunCommand(nats.url, { commands: parts.has('commands'), npm: parts.has('npm') });
  } finally {
    await nats.stop();
  }
}

/** Snippets through the warm pool, against cold containers and `docker run`. */
async function benchPool(env: Record<string, string>): Promise<void> {
  // The pool is sized to the burst so every run of it can be served warm.
  const warm = await throughWorker({ ...env, SANDBOX_POOL_SIZE: String(BURST_SIZE), SANDBOX_POOL_MAX: String(BURST_SIZE) });
  const coldWorker = await throughWorker({ ...env, SANDBOX_POOL_SIZE: '0' });
  const coldCli = await throughDockerRun(loadConfig(sandboxConfigSchema, env));
  printTable(loadConfig(sandboxConfigSchema, env), { warm, coldWorker, coldCli });
  console.log('');
  await benchGrowth(env);
  console.log('');
}

/** The default pool (SANDBOX_POOL_SIZE, growing to SANDBOX_POOL_MAX): a burst, then the same burst once it has grown. */
async function benchGrowth(env: Record<string, string>): Promise<void> {
  const config = loadConfig(sandboxConfigSchema, env);
  const { pool, call, close } = await startWorker(env);
  try {
    await pool.whenFull();
    const bursts: Array<{ label: string; samples: number[]; wallMs: number; hits: number }> = [];
    for (const label of ['first burst', 'after growing']) {
      const hits = pool.stats.hits;
      const { samples, wallMs } = await burst(BURST_SIZE, call);
      bursts.push({ label, samples, wallMs, hits: pool.stats.hits - hits });
      await pool.whenFull();
    }
    console.log(
      `default pool (SANDBOX_POOL_SIZE=${config.SANDBOX_POOL_SIZE}, SANDBOX_POOL_MAX=${config.SANDBOX_POOL_MAX}), a burst of ${BURST_SIZE}, twice:`,
    );
    for (const b of bursts) {
      console.log(
        `  ${b.label.padEnd(13)} p50 ${Math.round(percentile(b.samples, 50))} ms, p99 ${Math.round(percentile(b.samples, 99))} ms, ` +
          `wall ${Math.round(b.wallMs)} ms, ${b.hits}/${BURST_SIZE} warm`,
      );
    }
  } finally {
    await close();
  }
}

/** A real worker over NATS, called as the gateway calls it. */
async function startWorker(env: Record<string, string>) {
  const config = loadConfig(sandboxConfigSchema, env);
  const app: INestMicroservice = await createSandboxApp(config, createLogger('sandbox-bench', config.LOG_LEVEL));
  await app.listen();
  const rpc = await connectRpcClient(config.NATS_URL, 60_000);
  const durations: number[] = [];
  const call = async () => {
    const result = await rpc.client.request(Routes.sandboxExec, { mode: 'code', language: 'python', code: CODE });
    if (result.stdout !== '1\n') throw new Error(`unexpected output: ${JSON.stringify(result)}`);
    durations.push(result.durationMs);
  };
  const close = async () => {
    await rpc.close();
    await app.close();
  };
  return { config, pool: app.get(WarmPool), call, close, durations };
}

/** Runs through a real worker over NATS, as the gateway calls it. */
async function throughWorker(env: Record<string, string>): Promise<Figures> {
  const { config, pool, call, close, durations } = await startWorker(env);
  try {
    await pool.whenFull();
    await sequential(WARMUP_RUNS, call);
    const before = { ...pool.stats };
    durations.length = 0;
    // Spaced as a model spaces its tool calls: the pool has refilled before the next one.
    const seq = await sequential(SEQUENTIAL_RUNS, call, () => pool.whenFull());
    const runOnly = durations.splice(0);
    await pool.whenFull();
    const { samples, wallMs } = await burst(BURST_SIZE, call);
    const hits = pool.stats.hits - before.hits;
    const note = config.SANDBOX_POOL_SIZE > 0 ? `${hits}/${SEQUENTIAL_RUNS + BURST_SIZE} served warm` : undefined;
    return { sequential: seq, runOnly, burst: samples, burstWallMs: wallMs, note };
  } finally {
    await close();
  }
}

/** The baseline: the docker CLI starting a fresh container for each run. */
async function throughDockerRun(config: SandboxConfig): Promise<Figures> {
  const request = { mode: 'code', language: 'python', code: CODE, network: 'none' } as const;
  const spec = buildContainerSpec({ request, cwd: '', timeoutMs: config.SANDBOX_TIMEOUT_MS, now: Date.now() }, config);
  spec.labels['weft.sandbox.instance'] = INSTANCE;
  const args = dockerRunArgs(spec);
  const call = async () => {
    const stdout = await docker(args);
    if (stdout !== '1\n') throw new Error(`unexpected output: ${stdout}`);
  };
  await sequential(WARMUP_RUNS, call);
  const seq = await sequential(SEQUENTIAL_RUNS, call);
  const { samples, wallMs } = await burst(BURST_SIZE, call);
  return { sequential: seq, burst: samples, burstWallMs: wallMs };
}

function printTable(config: SandboxConfig, columns: { warm: Figures; coldWorker: Figures; coldCli: Figures }): void {
  const headers = ['', 'warm pool (worker)', 'cold (worker, pool off)', 'cold docker run --rm'];
  const all = [columns.warm, columns.coldWorker, columns.coldCli];
  const ms = (value: number) => `${Math.round(value)} ms`;
  const rows = [
    [`sequential x${SEQUENTIAL_RUNS} p50`, ...all.map((f) => ms(percentile(f.sequential, 50)))],
    [`sequential x${SEQUENTIAL_RUNS} p99`, ...all.map((f) => ms(percentile(f.sequential, 99)))],
    [`  of which the run, p50`, ...all.map((f) => (f.runOnly ? ms(percentile(f.runOnly, 50)) : '-'))],
    [`burst of ${BURST_SIZE} p50`, ...all.map((f) => ms(percentile(f.burst, 50)))],
    [`burst of ${BURST_SIZE} p99`, ...all.map((f) => ms(percentile(f.burst, 99)))],
    [`burst of ${BURST_SIZE} wall`, ...all.map((f) => ms(f.burstWallMs))],
  ];
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const out = [
    `sandbox latency: python ${CODE}, image ${config.SANDBOX_IMAGE}, runtime ${config.SANDBOX_RUNTIME}, ` +
      `limits ${config.SANDBOX_MEMORY_MB} MiB / ${config.SANDBOX_CPUS} CPU / ${config.SANDBOX_PIDS_LIMIT} pids, host ${cpus().length} CPUs`,
    line(headers),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
    'worker columns: request to reply over NATS; every process of the run is dead at the reply, its container is removed just after.',
    '"of which the run": the result\'s durationMs, the worker\'s own clock from handing the code over (warm) or from start (cold) to its end.',
    'docker run: CLI spawn to exit, container removal included (--rm).',
    `warm pool: SANDBOX_POOL_SIZE=${BURST_SIZE}, sequential runs wait for the refill first; ${columns.warm.note ?? ''}.`,
    `p99 is nearest-rank over ${SEQUENTIAL_RUNS} (sequential) and ${BURST_SIZE} (burst) samples, after ${WARMUP_RUNS} warm-up runs.`,
    'search_files vs ripgrep: npm run bench:tools.',
  ];
  console.log(out.join('\n'));
}

function pick(source: NodeJS.ProcessEnv, keys: string[]): Record<string, string> {
  return Object.fromEntries(keys.flatMap((key) => (source[key] ? [[key, source[key]]] : [])));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
