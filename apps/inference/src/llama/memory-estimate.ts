import { stat } from 'node:fs/promises';
import { totalmem } from 'node:os';
import { ggufFileChecks } from '../gguf-validation/gguf-checks';
import type { LlamaModelConfig } from '../registry/models-config.schema';
import type { LlamaBackend } from './llama-runtime';

/**
 * node-llama-cpp's parse of a validated header is bounded by the validator's limits; this stops it
 * (between its reads) should it run longer anyway.
 */
export const ESTIMATE_READ_TIMEOUT_MS = 30_000;

/**
 * The memory one model takes once loaded, as node-llama-cpp estimates it from the GGUF's tensors
 * and the context it is given (all its sequences): VRAM when llama.cpp runs on a GPU, RAM on a CPU.
 * Only a file Weft's validator passed is parsed (a refused one is an INFERENCE.MODEL_FILE_INVALID).
 */
export async function estimateModelBytes({ lib, llama }: LlamaBackend, config: LlamaModelConfig): Promise<number> {
  await ggufFileChecks.check(config.path);
  const info = await lib.readGgufFileInfo(config.path, { signal: AbortSignal.timeout(ESTIMATE_READ_TIMEOUT_MS) });
  const insights = await lib.GgufInsights.from(info, llama);
  await assertWholeFile(config.path, info.infoEndOffset ?? 0, Number(info.metadata.general?.alignment ?? 32), insights.modelSize);
  const onGpu = llama.gpu !== false;
  const gpuLayers = !onGpu ? 0 : config.gpuLayers === 'auto' ? insights.totalLayers : Math.min(config.gpuLayers, insights.totalLayers);
  const model = await insights.estimateModelResourceRequirementsV2({ gpuLayers });
  const context = await insights.estimateContextResourceRequirementsV2({
    contextSize: config.contextSize,
    modelGpuLayers: gpuLayers,
    sequences: config.sequences + config.expressSequences,
    ...(config.batchSize === undefined ? {} : { batchSize: config.batchSize }),
  });
  const pick = (r: { cpuRam: number; gpuVram: number }) => (onGpu ? r.gpuVram : r.cpuRam);
  return Math.ceil(pick(model) + pick(context));
}

/** The default budget: the GPU's memory (or the machine's, on a CPU) less a margin for the rest. */
export async function deviceBudgetBytes({ llama }: LlamaBackend, marginBytes: number): Promise<number> {
  const total = llama.gpu === false ? totalmem() : (await llama.getVramState()).total;
  return Math.max(total - marginBytes, 0);
}

/**
 * llama.cpp finds a truncated GGUF (a copy cut short) only when it loads it; by then other models
 * may have been unloaded to make room for it. Its header says how long the file must be.
 */
async function assertWholeFile(path: string, headerBytes: number, alignment: number, tensorBytes: number): Promise<void> {
  const expected = Math.ceil(headerBytes / alignment) * alignment + tensorBytes;
  const { size } = await stat(path);
  if (size < expected) throw new Error(`the GGUF is truncated: ${size} bytes of the ${expected} its header describes`);
}
