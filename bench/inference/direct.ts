import type { GenerateRequest } from '@weft/contracts';
import { toChatFunctions, toChatHistory } from '../../apps/inference/src/llama/chat-history';
import { loadLlama, type LlamaBinary } from '../../apps/inference/src/llama/llama-binary';
import { grammarLimits } from '../../apps/inference/src/tool-calls/tool-choice';
import { LLAMA_CHAT_SAMPLING } from './sampling';
import type { RunSample } from './stats';

type Lib = typeof import('node-llama-cpp');

export interface DirectOptions {
  modelPath: string;
  contextSize: number;
  sequences: number;
  threads: number;
  /** node-llama-cpp's default (and the worker's) is off. */
  flashAttention?: boolean;
}

/**
 * The baseline: node-llama-cpp in this process, one context with `sequences` sequences and one
 * LlamaChat per request, as a program embedding it directly would do. Each request starts from
 * an empty sequence (no prefix reuse), like the Weft side whose prompts never share a prefix.
 */
export class DirectLlama {
  private constructor(
    private readonly lib: Lib,
    private readonly llama: Awaited<ReturnType<Lib['getLlama']>>,
    private readonly model: Awaited<ReturnType<Awaited<ReturnType<Lib['getLlama']>>['loadModel']>>,
    private readonly context: Awaited<ReturnType<DirectLlama['model']['createContext']>>,
    private readonly free: ReturnType<DirectLlama['context']['getSequence']>[],
    private readonly chatWrapper: ReturnType<Lib['resolveChatWrapper']>,
  ) {}

  static async open(options: DirectOptions): Promise<DirectLlama> {
    const lib = await import('node-llama-cpp');
    // The binary the worker would load: a local build (scripts/llama/build-addon.sh) when there is one.
    const llama = await loadLlama(lib, { binary: benchBinary(), logLevel: lib.LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath: options.modelPath, gpuLayers: 'auto' });
    const context = await model.createContext({ contextSize: options.contextSize, sequences: options.sequences, threads: options.threads, flashAttention: options.flashAttention });
    const free = Array.from({ length: options.sequences }, () => context.getSequence());
    return new DirectLlama(lib, llama, model, context, free, lib.resolveChatWrapper(model));
  }

  get gpu(): string {
    return String(this.llama.gpu);
  }

  /** llama.cpp's system info: the kernels' instruction sets, and OPENMP = 1 where its threads persist. */
  get cpuFeatures(): string {
    return this.llama.systemInfo.trim();
  }

  /** `localBuild` (scripts/llama/build-addon.sh) or `prebuilt`. */
  get buildType(): string {
    return this.llama.buildType;
  }

  async generate(system: string, user: string, maxTokens: number): Promise<RunSample> {
    const sequence = this.free.pop();
    if (!sequence) throw new Error('more concurrent requests than sequences');
    const started = performance.now();
    let ttftMs = Number.NaN;
    const chat = new this.lib.LlamaChat({ contextSequence: sequence, chatWrapper: this.chatWrapper ?? 'auto' });
    try {
      await sequence.clearHistory();
      const before = sequence.tokenMeter.getState();
      await chat.generateResponse(
        [
          { type: 'system', text: system },
          { type: 'user', text: user },
        ],
        { maxTokens, ...LLAMA_CHAT_SAMPLING, onTextChunk: () => (ttftMs = Number.isNaN(ttftMs) ? performance.now() - started : ttftMs) },
      );
      const used = sequence.tokenMeter.diff(before);
      return { ttftMs, tokens: used.usedOutputTokens, evaluated: used.usedInputTokens + (used.usedOutputTokens > 0 ? 1 : 0) };
    } finally {
      chat.dispose({ disposeSequence: false });
      this.free.push(sequence);
    }
  }

  /**
   * A request as the gateway sends it to a worker (messages and tools), rendered the way the
   * worker renders it. With `keepPrefix` the sequence keeps its tokens, so LlamaChat evaluates
   * only what differs from the previous request on it, as the worker does for a new session on
   * a reused sequence. `evaluated` is llama.cpp's count of prompt tokens evaluated.
   */
  async generateRequest(request: GenerateRequest, maxTokens: number, keepPrefix: boolean): Promise<RunSample> {
    const sequence = this.free.shift();
    if (!sequence) throw new Error('more concurrent requests than sequences');
    const started = performance.now();
    let ttftMs = Number.NaN;
    const chat = new this.lib.LlamaChat({ contextSequence: sequence, chatWrapper: this.chatWrapper ?? 'auto' });
    try {
      if (!keepPrefix) await sequence.clearHistory();
      const before = sequence.tokenMeter.getState();
      const functions = toChatFunctions(request.tools, grammarLimits(request.tools ?? [], maxTokens));
      const markFirst = () => (ttftMs = Number.isNaN(ttftMs) ? performance.now() - started : ttftMs);
      await chat.generateResponse(toChatHistory(request.messages), { maxTokens, ...LLAMA_CHAT_SAMPLING, functions, onTextChunk: markFirst, onFunctionCallParamsChunk: markFirst });
      const used = sequence.tokenMeter.diff(before);
      return { ttftMs, tokens: used.usedOutputTokens, evaluated: used.usedInputTokens + (used.usedOutputTokens > 0 ? 1 : 0) };
    } finally {
      chat.dispose({ disposeSequence: false });
      this.free.push(sequence);
    }
  }

  async close(): Promise<void> {
    await this.context.dispose();
    await this.model.dispose();
    await this.llama.dispose();
  }
}

/** LLAMA_BINARY for the benchmarks, as the worker's config reads it. */
function benchBinary(): LlamaBinary {
  const value = process.env.LLAMA_BINARY ?? 'auto';
  if (value !== 'auto' && value !== 'local' && value !== 'prebuilt') throw new Error(`LLAMA_BINARY must be auto, local or prebuilt, got ${value}`);
  return value;
}
