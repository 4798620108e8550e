import type { Logger } from '@weft/logging';
import { patchBatchGathering } from './batch-gather-patch';
import { patchSamplingOnTheMainThread, samplesOnTheCallingThread } from './sample-now-patch';
import { patchContextLockYield } from './context-lock-patch';
import { patchFunctionParamsLengthCheck } from './function-params-patch';
import { loadLlama, localBuildFolder, type LlamaBinary } from './llama-binary';
import { patchNumberGrammar } from './number-grammar-patch';

// node-llama-cpp is ESM-only and this app compiles to CommonJS: load it with a dynamic import
// (kept as-is by swc and tsc) and take its types from the same import.
export type NodeLlamaCpp = typeof import('node-llama-cpp');
export type Llama = Awaited<ReturnType<NodeLlamaCpp['getLlama']>>;
export type LlamaModel = Awaited<ReturnType<Llama['loadModel']>>;
export type LlamaContext = Awaited<ReturnType<LlamaModel['createContext']>>;
export type LlamaContextSequence = ReturnType<LlamaContext['getSequence']>;
export type ChatWrapper = NonNullable<ReturnType<NodeLlamaCpp['resolveChatWrapper']>>;

export interface LlamaBackend {
  lib: NodeLlamaCpp;
  llama: Llama;
  /** How long building one JSON Schema's grammar may take (INFERENCE_GRAMMAR_BUDGET_MS); json-grammar-builder.ts's default when unset. */
  grammarBudgetMs?: number;
}

/** Holds the one llama.cpp binding of this process, created on first use. */
export class LlamaRuntime {
  private backend?: Promise<LlamaBackend>;

  constructor(
    private readonly log: Logger,
    private readonly binary: LlamaBinary = 'auto',
    private readonly grammarBudgetMs?: number,
  ) {}

  /** The GPU and its memory, once llama.cpp has started on one. */
  async gpu(): Promise<{ type: string; vramTotalBytes: number; vramUsedBytes: number } | undefined> {
    if (!this.backend) return undefined;
    const { llama } = await this.backend;
    if (llama.gpu === false) return undefined;
    const vram = await llama.getVramState();
    return { type: llama.gpu, vramTotalBytes: vram.total, vramUsedBytes: vram.used };
  }

  /** Whether llama.cpp has been asked to start (the first load). */
  get started(): boolean {
    return this.backend !== undefined;
  }

  get(): Promise<LlamaBackend> {
    this.backend ??= this.start();
    return this.backend;
  }

  async dispose(): Promise<void> {
    if (!this.backend) return;
    const { llama } = await this.backend;
    await llama.dispose();
  }

  private async start(): Promise<LlamaBackend> {
    const lib = await import('node-llama-cpp');
    if (!(await patchNumberGrammar())) {
      this.log.warn('could not tighten node-llama-cpp number grammar; tool arguments are still validated after generation');
    }
    if (!(await patchFunctionParamsLengthCheck())) {
      this.log.warn('could not align node-llama-cpp string length check; a capped argument with characters beyond U+FFFF may fail its call');
    }
    if (!patchContextLockYield(lib)) {
      this.log.warn('could not patch node-llama-cpp context lock; a request that trims its sequence may wait for other generations to end');
    }
    if (!patchBatchGathering(lib)) {
      this.log.warn('could not patch node-llama-cpp batching; concurrent generations may take more decode passes than they need');
    }
    if (!patchSamplingOnTheMainThread(lib)) {
      this.log.warn('could not patch node-llama-cpp sampling; each token is sampled on the thread pool');
    }
    const llama = await loadLlama(lib, {
      binary: this.binary,
      logLevel: lib.LlamaLogLevel.warn,
      logger: (level, message) => this.log.warn({ llamaLevel: level }, message.trim()),
    });
    // Which binary serves decides the speed on a CPU (docs/inference.md, "The llama.cpp binary").
    this.log.info(
      {
        gpu: llama.gpu,
        build: llama.buildType,
        cpuMathCores: llama.cpuMathCores,
        kernels: llama.systemInfo.trim(),
        sampling: samplesOnTheCallingThread(llama) ? 'main thread' : 'thread pool',
      },
      'llama.cpp ready',
    );
    if (llama.buildType !== 'localBuild' && this.binary !== 'prebuilt' && localBuildFolder()) {
      this.log.warn({ localBuild: localBuildFolder() }, 'the llama.cpp build for this CPU failed to load: serving with the slower prebuilt binary');
    }
    return { lib, llama, grammarBudgetMs: this.grammarBudgetMs };
  }
}
