/** A coding model `weft setup` offers to pull, with what it needs. */
export interface RecommendedModel {
  readonly id: string;
  readonly source: string;
  /** The GGUF's size, roughly. */
  readonly sizeBytes: number;
  readonly note: string;
}

const GB = 1_000_000_000;

/**
 * Instruction-tuned coding models with tool calling, as Q4_K_M GGUFs (single files), smallest
 * first. The file names follow the repositories' naming; the hub itself was not reachable when
 * this list was written, so a renamed file shows as the hub's 404 at pull time.
 */
export const RECOMMENDED_MODELS: readonly RecommendedModel[] = [
  { id: 'qwen2.5-coder-1.5b', source: 'hf:bartowski/Qwen2.5-Coder-1.5B-Instruct-GGUF/Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf', sizeBytes: 1.0 * GB, note: 'small and quick; simple edits' },
  { id: 'qwen2.5-coder-7b', source: 'hf:bartowski/Qwen2.5-Coder-7B-Instruct-GGUF/Qwen2.5-Coder-7B-Instruct-Q4_K_M.gguf', sizeBytes: 4.7 * GB, note: 'a good default on a laptop or one small GPU' },
  { id: 'qwen2.5-coder-14b', source: 'hf:bartowski/Qwen2.5-Coder-14B-Instruct-GGUF/Qwen2.5-Coder-14B-Instruct-Q4_K_M.gguf', sizeBytes: 9.0 * GB, note: 'stronger; wants a 16 GB GPU' },
  { id: 'qwen3-coder-30b-a3b', source: 'hf:unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF/Qwen3-Coder-30B-A3B-Instruct-Q4_K_M.gguf', sizeBytes: 18.6 * GB, note: 'mixture of experts: 3B active, quick even on a CPU' },
  { id: 'qwen2.5-coder-32b', source: 'hf:bartowski/Qwen2.5-Coder-32B-Instruct-GGUF/Qwen2.5-Coder-32B-Instruct-Q4_K_M.gguf', sizeBytes: 19.9 * GB, note: 'the strongest here; a 24 GB GPU or more' },
];

/** The memory a model is sized against: the GPU's where one is seen, else the RAM. */
export interface HostMemory {
  readonly kind: 'gpu' | 'ram';
  readonly bytes: number;
  /** `GPU (CUDA, 24 GiB)` or `RAM of this machine (32 GiB)`. */
  readonly describe: string;
}

/**
 * The share of memory a model's weights may take. A GPU holds the weights, the KV cache and the
 * runtime's own; the RAM of a machine without one also holds the system, Docker, the stack and
 * the developer's own tools (an 18.6 GB model on 24 GiB of RAM left the machine swapping).
 */
const FITS_SHARE: Readonly<Record<HostMemory['kind'], number>> = { gpu: 0.75, ram: 0.5 };

/** Up to `count` models that fit, largest first; the smallest one alone when none does. */
export function recommendFor(memory: HostMemory, count = 3): { models: RecommendedModel[]; fits: boolean } {
  const fitting = RECOMMENDED_MODELS.filter((model) => model.sizeBytes <= memory.bytes * FITS_SHARE[memory.kind]);
  if (fitting.length === 0) return { models: RECOMMENDED_MODELS.slice(0, 1), fits: false };
  return { models: fitting.slice(-count).reverse(), fits: true };
}
