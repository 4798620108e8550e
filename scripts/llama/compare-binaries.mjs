#!/usr/bin/env node
// Tokens per second of node-llama-cpp's prebuilt binary against a local build (by default the
// one scripts/llama/cached-build.sh made for this CPU), in one run: paired rounds, the order
// alternating, each binary in its own process, on the benchmark-shape GGUF of
// `npm run bench:inference`. The same bare `sequence.evaluate` loop drives both, at 1, 4 and 8
// concurrent sequences, so only the binary differs. The repository's node_modules is left as is:
// the local build is installed into a private copy of node-llama-cpp.
//
//   node scripts/llama/compare-binaries.mjs [Release folder]
//   BENCH_ROUNDS=3 BENCH_LEVELS=1,4,8 BENCH_MAX_TOKENS=48 BENCH_THREADS=<cores>
//   BENCH_PICK=1: a short run (2 rounds, 1 and 4 sequences, 16 tokens) ending in a line
//   `pick: local|prebuilt`, the local build when the geometric mean of its median ratios is > 1
//   (cached-build.sh keeps that verdict per build).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// The child runs from a copy of this file elsewhere: it takes the model's path from the parent.
const MODEL = process.env.WEFT_COMPARE_MODEL ?? join(root, '.weft-test/bench/bench-1024x8-f16-ctx8k.gguf');
const SHAPE = ['--embedding', '1024', '--layers', '8', '--heads', '16', '--kv-heads', '4', '--feed-forward', '2816', '--context', '8192', '--merges', '400', '--f16'];
const PICK = process.env.BENCH_PICK === '1';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (PICK ? 2 : 3));
const LEVELS = (process.env.BENCH_LEVELS ?? (PICK ? '1,4' : '1,4,8')).split(',').map(Number);
const MAX_TOKENS = Number(process.env.BENCH_MAX_TOKENS ?? (PICK ? 16 : 48));
const THREADS = Number(process.env.BENCH_THREADS ?? cpus().length);

if (process.argv[2] === '--child') await child(process.argv[3]);
else await parent(process.argv[2]);

async function parent(releaseArg) {
  // `timeout` signals the child too; this process then cleans up in `finally` instead of dying first.
  process.on('SIGTERM', () => {});
  const release = releaseArg ?? execFileSync('bash', [join(root, 'scripts/llama/cached-build.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  if (!release || !existsSync(join(release, 'llama-addon.node'))) throw new Error(`no local build to compare: ${release || 'cached-build.sh built none'}`);
  if (!existsSync(MODEL)) execFileSync('node', [join(root, 'scripts/gguf/make-test-model.mjs'), MODEL, ...SHAPE], { stdio: 'inherit' });
  const mods = privateNodeModules(release);
  try {
    const script = join(mods, 'compare-child.mjs');
    cpSync(fileURLToPath(import.meta.url), script);
    const results = { prebuilt: [], local: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ['prebuilt', 'local'] : ['local', 'prebuilt'];
      for (const binary of order) {
        // One libuv pool thread, as the worker runs (apps/inference/src/uv-threadpool.ts).
        const run = spawnSync('node', [script, '--child', binary], { encoding: 'utf8', env: { ...process.env, UV_THREADPOOL_SIZE: '1', WEFT_COMPARE_MODEL: MODEL } });
        if (run.status !== 0) throw new Error(`${binary} run failed (${run.signal ?? `exit ${run.status}`}): ${run.stderr}`);
        const result = JSON.parse(run.stdout.trim().split('\n').at(-1));
        if (round === 0) console.log(`${binary}: ${result.buildType}, ${result.backend}\n  ${result.systemInfo}`);
        results[binary].push(result.tokensPerSecond);
        console.log(`round ${round + 1} ${binary.padEnd(8)} ${LEVELS.map((level) => `${level}: ${result.tokensPerSecond[level].toFixed(1)}`).join('  ')} tok/s`);
      }
    }
    console.log(`\n${MAX_TOKENS} tokens per sequence, ${THREADS} threads, ${ROUNDS} paired rounds; local/prebuilt per round, then the median`);
    const medians = [];
    for (const level of LEVELS) {
      const ratios = results.local.map((local, i) => local[level] / results.prebuilt[i][level]);
      medians.push(median(ratios));
      console.log(`${String(level).padStart(2)} sequences: prebuilt ${median(results.prebuilt.map((r) => r[level])).toFixed(1)}, local ${median(results.local.map((r) => r[level])).toFixed(1)} tok/s; ratio ${ratios.map((r) => r.toFixed(2)).join(' ')} → median ${median(ratios).toFixed(2)}x`);
    }
    const score = Math.exp(medians.reduce((sum, r) => sum + Math.log(r), 0) / medians.length);
    console.log(`pick: ${score > 1 ? 'local' : 'prebuilt'} (local/prebuilt ${score.toFixed(2)}x, geometric mean of the medians)`);
  } finally {
    rmSync(mods, { recursive: true, force: true });
  }
}

/** The median; of an even count, the mean of the middle two. */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** node_modules linking to the repository's, except node-llama-cpp: a copy with the local build installed. */
function privateNodeModules(release) {
  const dir = mkdtempSync(join(tmpdir(), 'weft-compare-'));
  const modules = join(dir, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name !== 'node-llama-cpp') symlinkSync(join(root, 'node_modules', name), join(modules, name));
  }
  const nlc = join(modules, 'node-llama-cpp');
  cpSync(join(root, 'node_modules/node-llama-cpp'), nlc, { recursive: true, filter: (path) => !path.endsWith('gitRelease.bundle') && !path.includes('/llama/localBuilds') });
  execFileSync('bash', [join(root, 'scripts/llama/install-addon.sh'), release, nlc], { stdio: 'inherit' });
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  return dir;
}

async function child(binary) {
  const lib = await import('node-llama-cpp');
  let backend = '';
  const logger = (_level, message) => {
    if (message.includes('load_backend')) backend = message.trim();
  };
  // load_backend (which libggml-cpu-<variant>.so the prebuilt chose) is logged at debug level.
  const options = { logLevel: lib.LlamaLogLevel.debug, logger };
  const llama = binary === 'local' ? await lib.getLlama('lastBuild', options) : await lib.getLlama({ ...options, gpu: false, build: 'never' });
  if (binary === 'local' && llama.buildType !== 'localBuild') throw new Error(`the local build did not load (got ${llama.buildType})`);
  const model = await llama.loadModel({ modelPath: MODEL });
  const maxLevel = Math.max(...LEVELS);
  const context = await model.createContext({ contextSize: 8192, sequences: maxLevel, threads: THREADS });
  const sequences = Array.from({ length: maxLevel }, () => context.getSequence());
  const tokensPerSecond = {};
  for (const level of LEVELS) {
    const started = performance.now();
    let tokens = 0;
    await Promise.all(sequences.slice(0, level).map(async (sequence, i) => {
      await sequence.clearHistory();
      const prompt = model.tokenize(`Write a short note number ${i} about binaries and kernels.`);
      let n = 0;
      for await (const _token of sequence.evaluate(prompt, { temperature: 0 })) {
        if (++n >= MAX_TOKENS) break;
      }
      tokens += n;
    }));
    tokensPerSecond[level] = tokens / ((performance.now() - started) / 1000);
  }
  console.log(JSON.stringify({ buildType: llama.buildType, backend: backend || 'one CPU backend linked in', systemInfo: llama.systemInfo.trim(), tokensPerSecond }));
  await context.dispose();
  await model.dispose();
  await llama.dispose();
}
