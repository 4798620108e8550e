/** The addon's context: `sampleTokenNow` exists only in Weft's build (scripts/llama/addon-patches). */
export interface SamplingContext {
  sampleToken(batchLogitIndex: number, sampler: object, ...options: unknown[]): Promise<unknown>;
  sampleTokenNow?: (batchLogitIndex: number, sampler: object) => number;
}
interface ContextInternals {
  _ctx?: SamplingContext;
  dispatchPendingBatch(...args: unknown[]): unknown;
}

const patched = new WeakSet<object>();
/** Off only for the benchmark's paired rounds (bench/inference/steps.ts). */
let routing = true;

/** Benchmarks only: whether plain calls go to `sampleTokenNow` (true, the default) or stay on the pool. */
export function setSamplingOnTheMainThread(enabled: boolean): void {
  routing = enabled;
}

/**
 * node-llama-cpp samples each sequence's next token as a job of its own on libuv's thread pool:
 * after a batch of eight sequences, eight hops to the pool thread and eight back to the main
 * thread before the next batch can start. On a 2-core VM those hand-offs took 1-1.5 ms of every
 * 30 ms step (the sampling itself, a few microseconds), where llama-server samples in the thread
 * that decodes. Weft's build of the addon adds `sampleTokenNow`, the same sampling done on the
 * calling thread. This routes node-llama-cpp's plain sampling calls (no probabilities, confidence
 * or logits asked for) to it, per context, when the loaded binary has it: the prebuilt does not,
 * and then nothing changes. node-llama-cpp calls it between a batch's decode and the next
 * decode, under the context's lock, so nothing else uses the context meanwhile.
 *
 * Returns false when this node-llama-cpp lacks the method the patch hooks into.
 */
export function patchSamplingOnTheMainThread(lib: Pick<typeof import('node-llama-cpp'), 'LlamaContext'>): boolean {
  const contextProto = lib.LlamaContext.prototype as unknown as ContextInternals & { __weftSampleNow?: true };
  if (contextProto.__weftSampleNow) return true;
  const dispatch = contextProto.dispatchPendingBatch;
  if (typeof dispatch !== 'function') return false;
  contextProto.dispatchPendingBatch = function dispatchWithSamplingNow(this: ContextInternals, ...args: unknown[]) {
    const native = this._ctx;
    if (native && !patched.has(native)) {
      patched.add(native);
      routePlainSampling(native);
    }
    return dispatch.apply(this, args);
  };
  contextProto.__weftSampleNow = true;
  return true;
}

/**
 * The next token from the batch just decoded: sampled on the calling thread where the binary can
 * (a number), else as a job on libuv's pool (a promise). TokenSteps calls it directly, without
 * the promise the routed `sampleToken` wraps its answer in.
 */
export function sampleNowOrQueued(native: SamplingContext, batchLogitIndex: number, sampler: object): unknown {
  if (routing && typeof native.sampleTokenNow === 'function') return native.sampleTokenNow(batchLogitIndex, sampler);
  return native.sampleToken(batchLogitIndex, sampler);
}

/** Whether the loaded binary samples on the calling thread (Weft's build of the addon has `sampleTokenNow`). */
export function samplesOnTheCallingThread(llama: object): boolean {
  const bindings = (llama as { _bindings?: { AddonContext?: { prototype: object } } })._bindings;
  return typeof (bindings?.AddonContext?.prototype as SamplingContext | undefined)?.sampleTokenNow === 'function';
}

function routePlainSampling(native: SamplingContext): void {
  const now = native.sampleTokenNow;
  if (typeof now !== 'function') return;
  const queued = native.sampleToken;
  // The addon's methods are read-only on its prototype: the routing is the instance's own.
  Object.defineProperty(native, 'sampleToken', {
    configurable: true,
    value: function sampleToken(this: SamplingContext, batchLogitIndex: number, sampler: object, ...options: unknown[]): Promise<unknown> {
      if (options.length > 0 || !routing) return queued.call(this, batchLogitIndex, sampler, ...options);
      try {
        return Promise.resolve(now.call(this, batchLogitIndex, sampler));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
  });
}
