import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The agent CLIs the compatibility matrix drives, pinned. They are hundreds of MB each and not
 * all open source, so they are never project dependencies: the test tier installs each from the
 * npm registry into a cache the first time it is needed (README, "Agents and editors").
 */
export const AGENT_CLIENTS = {
  claudeCode: { pkg: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
  codex: { pkg: '@openai/codex', version: '0.169.0', bin: 'codex' },
  opencode: { pkg: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
  qwenCode: { pkg: '@qwen-code/qwen-code', version: '0.24.4', bin: 'qwen' },
} as const;
export type AgentClientName = keyof typeof AGENT_CLIENTS;

/** Where the clients live between runs; `WEFT_AGENT_CLIENTS_CACHE` moves it. */
export const AGENT_CLIENTS_CACHE = process.env.WEFT_AGENT_CLIENTS_CACHE ?? join(homedir(), '.cache', 'weft', 'agent-clients');

/** A registry download of a few hundred MB on a slow mirror. */
const INSTALL_TIMEOUT_MS = 15 * 60_000;

const run = promisify(execFile);

/** The path of the client's executable, installing the pinned version first if the cache lacks it. */
export async function agentClient(name: AgentClientName): Promise<string> {
  const { pkg, version, bin } = AGENT_CLIENTS[name];
  const prefix = join(AGENT_CLIENTS_CACHE, `${pkg.replace('/', '+')}@${version}`);
  const path = join(prefix, 'node_modules', '.bin', bin);
  if (existsSync(path)) return path;
  await mkdir(prefix, { recursive: true });
  // The platform binaries are optional dependencies of each package: `--omit` must not drop them.
  await run('npm', ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `${pkg}@${version}`], {
    timeout: INSTALL_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (!existsSync(path)) throw new Error(`npm installed ${pkg}@${version} but ${path} is missing`);
  return path;
}

/**
 * Runs a client headless with no input: several of them (Claude Code, Codex, opencode) read a
 * piped stdin to its end as part of the prompt, and would wait forever on an open one.
 */
export function runAgentClient(bin: string, args: string[], options: { cwd: string; timeoutMs: number; env: NodeJS.ProcessEnv }) {
  const running = run(bin, args, { cwd: options.cwd, timeout: options.timeoutMs, env: options.env, maxBuffer: 16 * 1024 * 1024 });
  running.child.stdin?.end();
  return running;
}
