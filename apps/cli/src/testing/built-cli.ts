import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const APP = resolve(__dirname, '../..');
const ROOT = resolve(APP, '../..');
/**
 * Each test file builds into a folder of its own (under the ignored dist/): two files building at
 * once must not run a main.js the other is rewriting.
 */
const OUT = `dist/test-${randomBytes(4).toString('hex')}`;
const MAIN = join(APP, OUT, 'main.js');
const BUILD = join(ROOT, 'scripts/build/swc-build.sh');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Builds what `nx build cli` builds (and the contracts it needs), so a test runs the real `bin`. */
export async function buildCli(): Promise<void> {
  if (contractsBuildIsStale()) await build('libs/contracts');
  await build('apps/cli', OUT);
  removeStaleBuilds();
}

/** No build of libs/contracts yet, or one older than its newest source (a checkout that moved on). */
function contractsBuildIsStale(): boolean {
  const built = join(ROOT, 'libs/contracts/dist/index.js');
  if (!existsSync(built)) return true;
  const sources = readdirSync(join(ROOT, 'libs/contracts/src'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  const newest = Math.max(...sources.map((entry) => statSync(join(entry.parentPath, entry.name)).mtimeMs));
  return newest > statSync(built).mtimeMs;
}

/** Test builds older than an hour: a worker stopped by the runner leaves its folder behind. */
function removeStaleBuilds(): void {
  const dist = join(APP, 'dist');
  for (const name of readdirSync(dist)) {
    const path = join(dist, name);
    if (name.startsWith('test-') && Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
  }
}

/** The project's own build (test code left out), into `out`. */
async function build(project: string, out = 'dist'): Promise<void> {
  await run('bash', [BUILD, out], { cwd: join(ROOT, project) });
}

/** The command line that runs the built `weft` (for a terminal the test drives, such as tmux). */
export function weftCommandLine(args: string[]): string[] {
  return [process.execPath, MAIN, ...args];
}

export interface WeftOptions {
  /** Its working folder (default: the test's). */
  readonly cwd?: string;
}

/** Runs the built `weft` with only `env` (and PATH, NO_COLOR) set, `input` on stdin. */
export function weft(args: string[], env: Record<string, string>, input?: string, options: WeftOptions = {}): Promise<CliResult> {
  const running = startWeft(args, env, options);
  running.child.stdin.end(input ?? '');
  return running.done;
}

/** A `weft` left running: its stdin open, its output so far, and a way to wait for some of it. */
export interface RunningWeft {
  readonly child: ChildProcessWithoutNullStreams;
  readonly done: Promise<CliResult>;
  output(): { stdout: string; stderr: string };
  /** Resolves once stdout or stderr contains `text`; rejects if the process ends first. */
  waitFor(text: string): Promise<void>;
}

export function startWeft(args: string[], env: Record<string, string>, options: WeftOptions = {}): RunningWeft {
  const child = spawn(process.execPath, [MAIN, ...args], { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env } });
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  const seen = () => waiters.forEach((check) => check());
  child.stdout.on('data', (chunk: Buffer) => ((stdout += chunk.toString()), seen()));
  child.stderr.on('data', (chunk: Buffer) => ((stderr += chunk.toString()), seen()));
  const done = new Promise<CliResult>((resolveDone, fail) => {
    child.on('error', fail);
    child.on('close', (code) => resolveDone({ code: code ?? -1, stdout, stderr }));
  });
  const waitFor = (text: string) =>
    new Promise<void>((resolveWait, fail) => {
      const check = () => {
        if (!stdout.includes(text) && !stderr.includes(text)) return;
        waiters.delete(check);
        resolveWait();
      };
      waiters.add(check);
      check();
      void done.then((result) => fail(new Error(`weft exited (${result.code}) before printing ${JSON.stringify(text)}:\n${result.stdout}\n${result.stderr}`)));
    });
  return { child, done, output: () => ({ stdout, stderr }), waitFor };
}
