/** How late a drop timer may fire before this process counts its own loop as having stalled. */
export const STALL_TOLERANCE_MS = 200;

export interface SilenceWatch {
  /** Called when `ttlMs` passed, with this process listening all along, and nothing was heard. */
  onSilent: () => void;
  /** Called, for the log, each time the timer came `lateMs` late and judging was put off. */
  onStalled?: (lateMs: number) => void;
  /** Monotonic milliseconds (tests pass a fake). */
  now?: () => number;
}

/**
 * A drop timer that does not mistake this process's own stall for a worker's silence. Node runs
 * timers that came due during a stall (a large request, a GC pause, a starved CPU) before it reads
 * the sockets, so a plain timer would drop a worker whose heartbeats wait unread in the socket. A
 * timer that fires late is no evidence: it waits `graceMs` more, the socket being read in
 * between, and judges again. Returns the cancel.
 */
export function watchSilence(ttlMs: number, graceMs: number, watch: SilenceWatch): () => void {
  const now = watch.now ?? (() => performance.now());
  let timer: NodeJS.Timeout | undefined;
  const arm = (ms: number) => {
    const due = now() + ms;
    timer = setTimeout(() => {
      const late = now() - due;
      if (late > STALL_TOLERANCE_MS) {
        watch.onStalled?.(late);
        arm(graceMs);
        return;
      }
      watch.onSilent();
    }, ms);
    timer.unref();
  };
  arm(ttlMs);
  return () => clearTimeout(timer);
}
