import { readFileSync } from 'node:fs';

interface NativeContext {
  decodeBatch(): Promise<void>;
  __weftTimed?: true;
}
interface ContextInternals {
  _ctx?: NativeContext;
  dispatchPendingBatch(...args: unknown[]): unknown;
}

/**
 * Time spent inside llama.cpp's decode (`llama_decode`, reached through the context's native
 * `decodeBatch`), summed over every context of this process: what is left of a request's wall
 * time is everything else, JavaScript first. node-llama-cpp decodes one batch at a time per
 * context, so the sum is wall time where only one context generates.
 */
export class DecodeTimer {
  private totalMs = 0;

  /** Wraps each context's native decode the first time the context dispatches a batch. */
  install(lib: Pick<typeof import('node-llama-cpp'), 'LlamaContext'>): this {
    const proto = lib.LlamaContext.prototype as unknown as ContextInternals & { __weftDecodeTimer?: DecodeTimer };
    if (proto.__weftDecodeTimer) throw new Error('a DecodeTimer is already installed in this process');
    proto.__weftDecodeTimer = this;
    const dispatch = proto.dispatchPendingBatch;
    if (typeof dispatch !== 'function') throw new Error('this node-llama-cpp has no LlamaContext.dispatchPendingBatch to time decodes in');
    const add = (ms: number) => (this.totalMs += ms);
    proto.dispatchPendingBatch = function timedDispatch(this: ContextInternals, ...args: unknown[]) {
      const native = this._ctx;
      if (native && !native.__weftTimed) {
        const decode = native.decodeBatch.bind(native);
        // The addon's method is read-only on its prototype: define the timed one on the instance.
        Object.defineProperty(native, 'decodeBatch', {
          configurable: true,
          value: async () => {
            const started = performance.now();
            try {
              await decode();
            } finally {
              add(performance.now() - started);
            }
          },
        });
        Object.defineProperty(native, '__weftTimed', { value: true });
      }
      return dispatch.apply(this, args);
    };
    return this;
  }

  /** Milliseconds inside the native decode since the timer was installed. */
  get elapsedMs(): number {
    return this.totalMs;
  }
}

/** The llama.cpp addon and CPU kernel library this process has loaded, from its memory map. */
export function loadedLlamaBinaries(): string[] {
  const maps = readFileSync('/proc/self/maps', 'utf8');
  const paths = new Set<string>();
  for (const line of maps.split('\n')) {
    const path = line.slice(line.indexOf('/'));
    if (/llama-addon\.node$|libggml-cpu[^/]*\.so$|libggml-cuda[^/]*\.so$/.test(path)) paths.add(path);
  }
  return [...paths];
}
