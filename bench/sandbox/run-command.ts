/**
 * The `run_command` part of `npm run bench:sandbox`: a command in a session's warm container
 * (through its command server, and through docker exec) against a cold container per command
 * (the worker without a session) and
 * `docker run --rm` of the same image with the same mount and limits; then the same lockfile's
 * `npm ci` twice through the allow-listing proxy, the second time from the user's package cache.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import { loadConfig, sandboxConfigSchema } from '@weft/config';
import { type ExecRequest, type ExecResult, Routes } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { connectRpcClient } from '@weft/messaging';
import { createSandboxApp } from '../../apps/sandbox/src/app';
import { buildContainerSpec } from '../../apps/sandbox/src/exec/container-spec';
import { TestImages } from '../../test/support/containers';
import { docker, dockerRunArgs } from './docker-run';
import { percentile, sequential } from './stats';

const HOST_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
const RUNS = Number(process.env.BENCH_SEQUENTIAL ?? 20);
const COMMANDS = ['true', "python3 -c 'print(1)'"];
/** A small web project's dependencies (77 packages): what a first install has to fetch. */
const NPM_DEPENDENCIES = { express: '4.21.2', chalk: '4.1.2', semver: '7.6.3' };

interface Worker {
  exec(request: ExecRequest): Promise<ExecResult>;
  close(): Promise<void>;
}

export async function benchRunCommand(natsUrl: string, parts: { commands: boolean; npm: boolean }): Promise<void> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'weft-bench-ws-')));
  const proxy = parts.npm ? startProxy() : undefined;
  try {
    if (parts.commands) await benchCommands(natsUrl, root);
    if (parts.npm && proxy) {
      const worker = await startWorker(natsUrl, root, proxy);
      try {
        await benchNpmCi(worker, root);
      } finally {
        await worker.close();
      }
    }
  } finally {
    if (proxy) execFileSync('docker', ['rm', '-f', proxy], { stdio: 'ignore' });
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * One worker at a time on the shared NATS (two would split the requests between them): the
 * command server first, then the same worker with it turned off, whose runs are `docker exec`.
 */
async function benchCommands(natsUrl: string, root: string): Promise<void> {
  const workspaceId = await newWorkspace(root, 'ws_benchcommands');
  const columns = new Map<string, number[][]>();
  let sessions = 0;
  const measure = async (env: Record<string, string>, take: (worker: Worker, base: CommandBase) => Promise<Array<[string, number[]]>>) => {
    const worker = await startWorker(natsUrl, root, undefined, env);
    try {
      for (const [i, command] of COMMANDS.entries()) {
        const base = { mode: 'command', workspaceId, command, writable: true, network: 'none' } as const;
        for (const [column, samples] of await take(worker, base)) {
          const rows = columns.get(column) ?? [];
          rows[i] = samples;
          columns.set(column, rows);
        }
      }
    } finally {
      await worker.close();
    }
  };
  const session = () => ({ sessionId: `ses_bench${process.pid}x${++sessions}`, ownerId: 'usr_bench' });
  await measure({}, async (worker, base) => {
    const inSession = { ...base, session: session() };
    return [["session's warm container", await timed(() => worker.exec(inSession))]];
  });
  await measure({ SANDBOX_COMMAND_SERVER: 'false' }, async (worker, base) => {
    const inSession = { ...base, session: session() };
    const image = TestImages.sandboxDev;
    const spec = buildContainerSpec(
      { request: base, workspaceHostPath: join(root, workspaceId), cwd: '', timeoutMs: 60_000, now: Date.now() },
      { ...loadConfig(sandboxConfigSchema, {}), SANDBOX_IMAGE: image },
    );
    return [
      ['warm, docker exec', await timed(() => worker.exec(inSession))],
      ['cold container (worker)', await timed(() => worker.exec(base))],
      ['docker run --rm', await timed(() => docker(dockerRunArgs(spec)))],
    ];
  });
  const headers = [...columns.keys()];
  const rows = COMMANDS.flatMap((command, i) =>
    [50, 99].map((p) => [`${command} p${p}`, ...headers.map((h) => ms(percentile(columns.get(h)![i]!, p)))]),
  );
  printTable(
    `run_command latency (x${RUNS} each, writable workspace, image ${TestImages.sandboxDev}, host ${cpus().length} CPUs)`,
    ['', ...headers],
    rows,
  );
  console.log(
    "warm: request to reply over NATS, the command started by the container's command server (weft-serve) or by docker exec, changed files compared before and after.\n",
  );
}

interface CommandBase {
  mode: 'command';
  workspaceId: string;
  command: string;
  writable: true;
  network: 'none';
}

/** `npm ci` of one lockfile in a new session of a new user (empty cache), then again in a second session. */
async function benchNpmCi(worker: Worker, root: string): Promise<void> {
  const ownerId = `usr_npmbench${process.pid}`;
  const workspaceId = await newWorkspace(root, 'ws_benchnpmci0');
  await writeFile(join(root, workspaceId, 'package.json'), JSON.stringify({ name: 'bench', version: '1.0.0', dependencies: NPM_DEPENDENCIES }));
  const session = (n: number) => ({ sessionId: `ses_npmbench${process.pid}x${n}`, ownerId });
  const run = async (n: number, command: string) => {
    const result = await worker.exec({ mode: 'command', workspaceId, command, writable: true, network: 'proxy', session: session(n), timeoutMs: 300_000 });
    if (result.exitCode !== 0) throw new Error(`${command} failed: ${result.stderr}`);
    return result;
  };
  // The lockfile alone, without filling the cache: that is what the first `npm ci` does.
  await run(0, 'npm install --package-lock-only --cache /tmp/throwaway-cache --no-audit --no-fund');
  const first = await run(1, 'npm ci --no-audit --no-fund');
  const second = await run(2, 'rm -rf node_modules && npm ci --no-audit --no-fund');
  printTable(
    `npm ci of ${Object.keys(NPM_DEPENDENCIES).join(', ')} through the proxy (${first.changes?.folders[0]?.files ?? '?'} files installed)`,
    ['', 'first (empty cache)', 'second (user cache)', 'speed-up'],
    [['duration', ms(first.durationMs), ms(second.durationMs), `${(first.durationMs / second.durationMs).toFixed(1)}x`]],
  );
  await run(3, 'npm cache clean --force');
}

async function timed(call: () => Promise<unknown>): Promise<number[]> {
  await call();
  return sequential(RUNS, async () => {
    await call();
  });
}

async function startWorker(natsUrl: string, root: string, proxy: string | undefined, env: Record<string, string> = {}): Promise<Worker> {
  const config = loadConfig(sandboxConfigSchema, {
    NATS_URL: natsUrl,
    WORKSPACES_DIR: root,
    SANDBOX_POOL_SIZE: '0',
    SANDBOX_MEMORY_MB: '1024',
    SANDBOX_INSTANCE_ID: `bench-commands-${process.pid}`,
    SANDBOX_IMAGES: `dev=${TestImages.sandboxDev}`,
    LOG_LEVEL: 'warn',
    ...(proxy ? { SANDBOX_PROXY_CONTAINER: proxy } : {}),
    // Where HTTPS is re-signed on the way out (as on this project's machines), runs trust the host's bundle.
    ...(existsSync(HOST_CA_BUNDLE) ? { SANDBOX_CA_CERTS: HOST_CA_BUNDLE } : {}),
    ...env,
  });
  const app: INestMicroservice = await createSandboxApp(config, createLogger('sandbox-bench', config.LOG_LEVEL));
  await app.listen();
  const rpc = await connectRpcClient(natsUrl, 300_000);
  return {
    exec: (request) => rpc.client.request(Routes.sandboxExec, request, { timeoutMs: 300_000 }),
    async close() {
      await rpc.close();
      await app.close();
    },
  };
}

/** The allow-listing proxy, allowing the npm registry only. */
function startProxy(): string | undefined {
  try {
    return execFileSync(
      'docker',
      ['run', '-d', '--read-only', '--tmpfs', '/var/run', '--tmpfs', '/var/spool/squid', '--tmpfs', '/var/log/squid', '--tmpfs', '/tmp',
        '-e', 'PROXY_ALLOWED_HOSTS=registry.npmjs.org', TestImages.proxy],
      { encoding: 'utf8' },
    ).trim();
  } catch (error) {
    console.warn(`no proxy (${(error as Error).message.split('\n')[0]}): the npm ci part is skipped`);
    return undefined;
  }
}

async function newWorkspace(root: string, id: string): Promise<string> {
  await mkdir(join(root, id));
  await chmod(join(root, id), 0o777);
  return id;
}

function ms(value: number): string {
  return `${Math.round(value)} ms`;
}

function printTable(title: string, headers: string[], rows: string[][]): void {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log([title, line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n'));
}
