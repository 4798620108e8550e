/**
 * The `runtimes` part of `npm run bench:sandbox`: runc and gVisor's runsc side by side in one run,
 * on the same worker settings and images. Per runtime: a python snippet through the worker (warm
 * pool on runc; under runsc the pool is off, so cold) and as `docker run --rm`; `run_command` in a
 * session's warm container (`true`, python); a session's first command (a cold session container).
 * Skips runsc, saying so, where the engine does not list it.
 */
import { mkdir, chmod, mkdtemp, realpath, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import { loadConfig, sandboxConfigSchema } from '@weft/config';
import { type ExecRequest, type ExecResult, Routes } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { connectRpcClient } from '@weft/messaging';
import Docker from 'dockerode';
import { createSandboxApp } from '../../apps/sandbox/src/app';
import type { OciRuntime } from '../../apps/sandbox/src/docker/runtime-choice';
import { buildContainerSpec } from '../../apps/sandbox/src/exec/container-spec';
import { WarmPool } from '../../apps/sandbox/src/pool/warm-pool';
import { TestImages } from '../../test/support/containers';
import { docker, dockerRunArgs } from './docker-run';
import { percentile, sequential } from './stats';

const RUNS = Number(process.env.BENCH_SEQUENTIAL ?? 20);
const COLD_SESSIONS = Number(process.env.BENCH_COLD_SESSIONS ?? 5);

type Row = [label: string, byRuntime: Partial<Record<OciRuntime, string>>];

export async function benchRuntimes(natsUrl: string): Promise<void> {
  const listed = Object.keys(((await new Docker().info()) as { Runtimes?: Record<string, unknown> }).Runtimes ?? {});
  const runtimes: OciRuntime[] = listed.includes('runsc') ? ['runc', 'runsc'] : ['runc'];
  const root = await realpath(await mkdtemp(join(tmpdir(), 'weft-bench-rt-')));
  const rows = new Map<string, Partial<Record<OciRuntime, string>>>();
  const put = (label: string, runtime: OciRuntime, samples: number[], p: 50 | 99 = 50) => {
    rows.set(label, { ...rows.get(label), [runtime]: `${Math.round(percentile(samples, p))} ms` });
  };
  try {
    for (const runtime of runtimes) {
      const worker = await startWorker(natsUrl, root, runtime);
      try {
        const snippet = { mode: 'code', language: 'python', code: 'print(1)', network: 'none' } as const;
        const snippets = await timed(() => worker.exec(snippet), () => worker.pool.whenFull());
        put('snippet through the worker p50 (runc: warm pool; runsc: cold, no pool)', runtime, snippets);
        put('snippet through the worker p99', runtime, snippets, 99);
        const spec = buildContainerSpec({ request: snippet, cwd: '', timeoutMs: 60_000, now: Date.now() }, worker.config);
        const cli = await timed(() => docker(dockerRunArgs(spec)));
        put('snippet as docker run --rm p50', runtime, cli);
        const workspaceId = `ws_benchrt${runtime}`;
        await mkdir(join(root, workspaceId));
        await chmod(join(root, workspaceId), 0o777);
        let sessions = 0;
        const session = () => ({ sessionId: `ses_benchrt${process.pid}${runtime}${++sessions}`, ownerId: 'usr_benchrt' });
        for (const command of ['true', "python3 -c 'print(1)'"]) {
          const request = { mode: 'command', workspaceId, command, writable: true, network: 'none', session: session() } as const;
          await worker.exec(request);
          put(`run_command \`${command}\`, warm session p50`, runtime, await timed(() => worker.exec(request)));
        }
        const firsts: number[] = [];
        for (let i = 0; i < COLD_SESSIONS; i++) {
          const started = performance.now();
          await worker.exec({ mode: 'command', workspaceId, command: 'true', writable: true, network: 'none', session: session() });
          firsts.push(performance.now() - started);
        }
        put(`a session's first command (cold container) p50 of ${COLD_SESSIONS}`, runtime, firsts);
      } finally {
        await worker.close();
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  print(runtimes, [...rows.entries()]);
}

function print(runtimes: OciRuntime[], rows: Row[]): void {
  const headers = ['', ...runtimes];
  const cells = rows.map(([label, values]) => [label, ...runtimes.map((runtime) => values[runtime] ?? '-')]);
  const widths = headers.map((header, i) => Math.max(header.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log(`runc and runsc side by side (x${RUNS} each, images ${TestImages.sandbox} and ${TestImages.sandboxDev}, host ${cpus().length} CPUs)`);
  console.log([line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n'));
  if (!runtimes.includes('runsc')) console.log('runsc: the engine lists no runsc (docs/sandbox.md: gVisor says how to add it)');
  console.log('');
}

async function timed(call: () => Promise<unknown>, between?: () => Promise<void>): Promise<number[]> {
  return sequential(RUNS, async () => {
    const result = (await call()) as ExecResult | string;
    if (typeof result !== 'string' && result.exitCode !== 0) throw new Error(`a run failed: ${JSON.stringify(result)}`);
  }, between);
}

async function startWorker(natsUrl: string, root: string, runtime: OciRuntime) {
  const config = loadConfig(sandboxConfigSchema, {
    NATS_URL: natsUrl,
    WORKSPACES_DIR: root,
    SANDBOX_RUNTIME: runtime,
    SANDBOX_IMAGE: TestImages.sandbox,
    SANDBOX_IMAGES: `dev=${TestImages.sandboxDev},minimal=${TestImages.sandbox}`,
    SANDBOX_POOL_SIZE: '2',
    SANDBOX_POOL_MAX: '2',
    SANDBOX_MEMORY_MB: '1024',
    SANDBOX_INSTANCE_ID: `bench-runtimes-${process.pid}`,
    LOG_LEVEL: 'warn',
  });
  const app: INestMicroservice = await createSandboxApp(config, createLogger('sandbox-bench', config.LOG_LEVEL));
  await app.listen();
  const rpc = await connectRpcClient(natsUrl, 300_000);
  const pool = app.get(WarmPool);
  await pool.whenFull();
  return {
    config: { ...config, SANDBOX_RUNTIME: runtime },
    pool,
    exec: (request: ExecRequest) => rpc.client.request(Routes.sandboxExec, request, { timeoutMs: 300_000 }),
    async close() {
      await rpc.close();
      await app.close();
    },
  };
}
