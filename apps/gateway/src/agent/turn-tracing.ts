import type { AgentJob } from '@weft/contracts';
import { contextFromCarrier, inSpan, recordSpan, tracingEnabled } from '@weft/telemetry';

/**
 * Runs one pass of a queued turn as `turn.run`, in the trace of the request that queued it (the
 * job carries its context), after a `turn.queued` span for the wait in the queue; a run resumed
 * from a park waited for a person, not a slot, and gets no queue span.
 */
export function traceTurnRun<T extends { kind: string }>(job: AgentJob, queuedAt: number, run: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return run();
  const parent = job.trace ? contextFromCarrier(job.trace) : undefined;
  const attributes = { 'weft.turn.id': job.turnId, 'weft.session.id': job.sessionId, 'weft.turn.mode': job.mode };
  if (!job.parked) recordSpan('turn.queued', { parent, attributes, startTime: queuedAt });
  return inSpan('turn.run', { parent, attributes: { ...attributes, 'weft.turn.resumed': job.parked !== undefined } }, async (span) => {
    const outcome = await run();
    span?.setAttribute('weft.turn.outcome', outcome.kind);
    return outcome;
  });
}
