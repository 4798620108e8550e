const SIGNALS = ['SIGTERM', 'SIGINT'] as const;
/** A flush that hangs (collector gone) must not keep a stopping process alive. */
const FLUSH_DEADLINE_MS = 5_000;

/**
 * Exports the spans still queued when the process is told to stop, after the app has closed.
 * Nest's shutdown hooks handle a signal by closing the app, removing their listener and raising
 * the signal again; this listener stays quiet while another one is there and acts on the last
 * signal: it flushes, then lets the signal end the process as it would have.
 */
export function flushOnExitSignals(
  flush: () => Promise<void>,
  raise: (signal: NodeJS.Signals) => void = (signal) => process.kill(process.pid, signal),
): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    if (process.listenerCount(signal) > 1) return;
    stop();
    void withDeadline(flush()).finally(() => raise(signal));
  };
  const stop = () => SIGNALS.forEach((signal) => process.removeListener(signal, onSignal));
  SIGNALS.forEach((signal) => process.on(signal, onSignal));
  return stop;
}

async function withDeadline(work: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, FLUSH_DEADLINE_MS)));
  try {
    // A failed export is the exporter's to report (OpenTelemetry's diag logger); the process stops either way.
    await Promise.race([work.catch(() => undefined), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
