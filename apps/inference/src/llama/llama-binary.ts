import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { InferenceConfig } from '@weft/config';
import type { LlamaLogLevel } from 'node-llama-cpp';

/**
 * Which llama.cpp binary node-llama-cpp loads. `prebuilt`: the binaries its npm packages ship.
 * `local`: the one scripts/llama/build-addon.sh compiled from the bundled source (for this
 * machine's CPU, or with CUDA); refused when there is none. `auto`: the local build when there
 * is one, else the prebuilt.
 */
export type LlamaBinary = InferenceConfig['LLAMA_BINARY'];

type Lib = typeof import('node-llama-cpp');
type Llama = Awaited<ReturnType<Lib['getLlama']>>;

export interface LoadLlamaOptions {
  binary?: LlamaBinary;
  logLevel: LlamaLogLevel;
  logger?: (level: LlamaLogLevel, message: string) => void;
}

/** The folder of node-llama-cpp's finished local build, as its lastBuild.json names it. */
export function localBuildFolder(): string | undefined {
  const llamaDir = join(dirname(require.resolve('node-llama-cpp')), '..', 'llama');
  try {
    const { folderName } = JSON.parse(readFileSync(join(llamaDir, 'lastBuild.json'), 'utf8')) as { folderName?: string };
    const folder = folderName ? join(llamaDir, 'localBuilds', folderName) : undefined;
    return folder && existsSync(join(folder, 'buildDone.status')) ? folder : undefined;
  } catch {
    return undefined;
  }
}

export async function loadLlama(lib: Lib, options: LoadLlamaOptions): Promise<Llama> {
  const binary = options.binary ?? 'auto';
  const local = binary === 'prebuilt' ? undefined : localBuildFolder();
  if (binary === 'local' && !local) throw new Error('LLAMA_BINARY=local, but node-llama-cpp has no local build: run scripts/llama/build-addon.sh');
  if (local) {
    const llama = await lib.getLlama('lastBuild', { logLevel: options.logLevel, logger: options.logger });
    // node-llama-cpp falls back to its prebuilt binaries when the local one fails to load.
    if (llama.buildType === 'localBuild' || binary !== 'local') return llama;
    await llama.dispose();
    throw new Error(`LLAMA_BINARY=local, but the local build in ${local} failed to load`);
  }
  // Never compile llama.cpp at runtime: the prebuilt binaries ship with the package.
  return lib.getLlama({ gpu: 'auto', build: 'never', logLevel: options.logLevel, logger: options.logger });
}
