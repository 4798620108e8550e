/**
 * The worker is started with `node --max-semi-space-size=32` (docs/inference.md, "Node's young
 * generation"): V8 sizes its young generation only at start, from node's command line or
 * NODE_OPTIONS. Returns the size in MiB the process was started with, or undefined for Node's
 * default, so a launch of its own (a systemd unit, a hand-written manifest) can be told.
 */
export function youngGenerationMiB(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): number | undefined {
  const flags = [...execArgv, ...nodeOptions.split(/\s+/)];
  // The last one wins, as in node; `--max_semi_space_size` is V8's spelling of the same flag.
  const value = flags.flatMap((flag) => /^--max[-_]semi[-_]space[-_]size=(\d+)$/.exec(flag)?.[1] ?? []).at(-1);
  return value === undefined ? undefined : Number(value);
}

/** What the worker logs at start when it runs with Node's default young generation. */
export const DEFAULT_YOUNG_GENERATION_NOTE =
  "node runs with its default young generation: start the worker with `node --max-semi-space-size=32` (as Weft's compose files and manifests do) to keep the per-token garbage's collection off llama.cpp's cores (docs/inference.md, \"Node's young generation\")";
