import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(__dirname, '../..');

/**
 * The llama-server the benchmark's reference column runs: LLAMA_SERVER_BIN when set (`off` for
 * none), else the one scripts/llama-server/cached.sh builds once per CPU from the llama.cpp source
 * the worker's node-llama-cpp ships, so a fresh clone compares against llama.cpp with no setting.
 * A failed build leaves the column out and says why, rather than ending the run.
 */
export function llamaServerBinary(): { path: string; origin: string } | undefined {
  const set = process.env.LLAMA_SERVER_BIN;
  if (set === 'off') return undefined;
  if (set) return { path: set, origin: 'LLAMA_SERVER_BIN' };
  try {
    const path = execFileSync('bash', [resolve(root, 'scripts/llama-server/cached.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
    return { path, origin: "built for this CPU from node-llama-cpp's llama.cpp source (GGML_NATIVE, OpenMP)" };
  } catch {
    console.log('llama-server: no binary, so no llama-server column (the lines above say why; LLAMA_SERVER_BIN=<path> to use one of your own)\n');
    return undefined;
  }
}
