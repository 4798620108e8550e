/**
 * `npm run bench:tools`: latency of `search_files` through the tools worker (the registry
 * in-process, and over NATS as the gateway calls it) next to ripgrep run directly on the same
 * generated tree with the same filters. Not a test: it prints a table. The NATS column needs the
 * Docker engine and the local NATS image (`npm run images`); BENCH_NATS=0 leaves it out.
 */
import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import { toolsConfigSchema } from '@weft/config';
import { Routes, type ToolCallRequest, type ToolCallResult } from '@weft/contracts';
import { connectRpcClient } from '@weft/messaging';
import pino from 'pino';
import { startToolsWorker } from '../../apps/tools/src/bootstrap';
import { RipgrepAdapter } from '../../apps/tools/src/search/ripgrep.adapter';
import { ToolRegistry } from '../../apps/tools/src/tool/tool-registry';
import { WorkspaceStore } from '../../apps/tools/src/workspace/workspace-store';
import { startNats } from '../../test/support/containers';
import { percentile, sequential } from '../sandbox/stats';
import { RARE_TOKEN, generateTree } from './tree';

const FILES = Number(process.env.BENCH_FILES ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WITH_NATS = process.env.BENCH_NATS !== '0';
const WARMUP_RUNS = 3;
const WORKSPACE_ID = 'ws_benchtools01';

interface Query {
  name: string;
  args: { pattern: string; glob?: string; ignoreCase?: boolean; maxResults?: number };
}

const QUERIES: Query[] = [
  { name: `rare literal (${FILES / 1000} hits)`, args: { pattern: RARE_TOKEN } },
  { name: 'common regex, capped at 200', args: { pattern: 'handler \\w+ result' } },
  { name: 'rare literal, glob **/*.ts', args: { pattern: RARE_TOKEN, glob: '**/*.ts' } },
  { name: 'no match, ignore case', args: { pattern: 'zzz_absent_zzz', ignoreCase: true } },
];

type Column = (query: Query) => Promise<void>;

async function main(): Promise<void> {
  const base = await mkdtemp(join(tmpdir(), 'weft-bench-tools-'));
  const store = new WorkspaceStore(join(base, 'workspaces'));
  const root = await store.create(WORKSPACE_ID);
  const nats = WITH_NATS ? await startNats() : undefined;
  let worker: INestMicroservice | undefined;
  let rpc: Awaited<ReturnType<typeof connectRpcClient>> | undefined;
  try {
    const started = performance.now();
    await generateTree(root, FILES);
    console.log(`generated ${FILES} files in ${Math.round(performance.now() - started)} ms`);

    const registry = new ToolRegistry(store, { readFileMaxBytes: 256 * 1024, outputMaxBytes: 256 * 1024 }, new RipgrepAdapter());
    const columns: Array<[string, Column]> = [
      ['search_files (in-process)', async ({ args }) => check(await registry.call({ workspaceId: WORKSPACE_ID, tool: 'search_files', arguments: args } as ToolCallRequest))],
    ];
    if (nats) {
      const config = toolsConfigSchema.parse({ NATS_URL: nats.url, WORKSPACES_DIR: join(base, 'workspaces') });
      worker = await startToolsWorker(config, pino({ level: 'warn' }));
      const client = (rpc = await connectRpcClient(nats.url, 60_000)).client;
      columns.push([
        'search_files (over NATS)',
        async ({ args }) => check(await client.request(Routes.toolsCall, { workspaceId: WORKSPACE_ID, tool: 'search_files', arguments: args })),
      ]);
    }
    columns.push(['rg directly', ({ args }) => ripgrep(root, args)]);

    const figures = new Map<string, number[]>();
    for (const query of QUERIES) {
      for (const [name, run] of columns) {
        await sequential(WARMUP_RUNS, () => run(query));
        figures.set(`${query.name}|${name}`, await sequential(RUNS, () => run(query)));
      }
    }
    printTable(columns.map(([name]) => name), figures);
  } finally {
    await rpc?.close();
    await worker?.close();
    await nats?.stop();
    await rm(base, { recursive: true, force: true });
  }
}

function check(result: ToolCallResult): void {
  if (result.isError) throw new Error(`search_files failed: ${result.output}`);
}

/** The baseline: the same filters the adapter passes, plain output, every match printed. */
function ripgrep(cwd: string, args: Query['args']): Promise<void> {
  const argv = ['--no-config', '--no-require-git', '--hidden', '--no-follow', '--line-number', '--glob', '!.git', '--glob', '!node_modules'];
  if (args.glob) argv.push('--glob', args.glob);
  if (args.ignoreCase) argv.push('--ignore-case');
  // An explicit path: with none, rg would search its stdin, a pipe here.
  argv.push('--regexp', args.pattern, '--', '.');
  return new Promise((resolve, reject) => {
    execFile('rg', argv, { cwd, maxBuffer: 256 * 1024 * 1024 }, (error) => {
      // Exit 1 is "no match".
      if (error && error.code !== 1) reject(error);
      else resolve();
    });
  });
}

function printTable(names: string[], figures: Map<string, number[]>): void {
  const headers = ['', ...names.flatMap((name) => [`${name} p50`, 'p99'])];
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const rows = QUERIES.map((query) => [
    query.name,
    ...names.flatMap((name) => {
      const samples = figures.get(`${query.name}|${name}`) ?? [];
      return [ms(percentile(samples, 50)), ms(percentile(samples, 99))];
    }),
  ]);
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => row[i]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  console.log(
    [
      `search_files vs ripgrep: ${FILES} files (~2 KiB each) + 400 skipped (node_modules, .gitignore'd dist), host ${cpus().length} CPUs, ${RUNS} runs per cell after ${WARMUP_RUNS} warm-up`,
      line(headers),
      line(widths.map((w) => '-'.repeat(w))),
      ...rows.map(line),
      '',
      'search_files: containment check, ripgrep --json streamed and parsed, capped at 200 matches (rg killed there), output truncated centrally.',
      'over NATS: request to reply through a real tools worker, as the gateway calls it.',
      'rg directly: same filters (--hidden, --no-follow, !.git, !node_modules, .gitignore), plain output, every match (no cap: the common regex prints all its matches).',
    ].join('\n'),
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
