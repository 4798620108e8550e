/**
 * Imported first by the worker's entry point: one libuv pool thread unless UV_THREADPOOL_SIZE
 * says otherwise. libuv reads the variable when the pool starts, at the first asynchronous file,
 * DNS or addon call, so it must be set before any. (The benchmarks set it on their command line:
 * vite-node has used the pool before their code runs.)
 *
 * Why: node-llama-cpp runs every llama_decode on the libuv pool. With the default four threads,
 * consecutive decodes land on different threads, and on a CPU each brings up llama.cpp's compute
 * threads afresh: the prebuilt's 2-thread decode ran at 42 tokens/s against 119 with one pool
 * thread (llama-bench: 107), see docs/inference.md. And sampling jobs finishing out of order
 * shuffle the sequences of the next batch, which llama.cpp then splits into several passes.
 * One pool thread keeps both in order; the decode is the pool's only heavy job anyway.
 */
process.env.UV_THREADPOOL_SIZE ??= '1';
