/** What a caller hears while its model loads: the share loaded (0 to 1) and the time waited. */
export interface ModelLoadingProgress {
  progress: number;
  elapsedMs: number;
}

/** How often a waiting request hears that its model is still loading: well inside any stream timeout. */
export const MODEL_LOADING_REPORT_MS = 2_000;

/**
 * Tells a request that its model is loading, at once and then every `intervalMs` until the
 * returned stop is called: the stream stays alive through a load longer than its idle timeout,
 * and the client can show how far the load is.
 */
export function reportModelLoading(
  progressOf: () => number,
  onLoading: (progress: ModelLoadingProgress) => void,
  intervalMs = MODEL_LOADING_REPORT_MS,
): () => void {
  const started = performance.now();
  const report = () => onLoading({ progress: Math.min(1, Math.max(0, progressOf())), elapsedMs: Math.round(performance.now() - started) });
  report();
  const timer = setInterval(report, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
