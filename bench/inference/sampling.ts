/**
 * How every side of the benchmark samples: greedily, with no repeat penalty. Left to their
 * defaults the sides did different work per token: llama-server samples at temperature 0.8 with
 * no penalty (llama.cpp's `repeat_penalty` defaults to 1.0), while node-llama-cpp, and so the
 * worker and the direct side, penalised the last 64 tokens at 1.1, which hands the native sampler
 * a new token list on every token. The benchmark compares the engines on the same work.
 */
export const BENCH_SAMPLING = { temperature: 0, repeatPenalty: 1 } as const;

/** The same as llama-server's request fields. */
export const LLAMA_SERVER_SAMPLING = { temperature: BENCH_SAMPLING.temperature, repeat_penalty: BENCH_SAMPLING.repeatPenalty } as const;

/** The same as LlamaChat's options (node-llama-cpp turns the penalty off with `false`). */
export const LLAMA_CHAT_SAMPLING = { temperature: BENCH_SAMPLING.temperature, repeatPenalty: false } as const;
