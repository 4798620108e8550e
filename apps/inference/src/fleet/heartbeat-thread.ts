// The heartbeat thread's entry (a worker_threads Worker). It runs as plain Node: compiled to
// CommonJS in dist, type-stripped from source under the tests. So: type-only imports, no
// module syntax left after stripping, and no `@weft/*` code at run time.
import type { NatsConnection } from 'nats';
import type { BeatFigures, BeatThreadData, FromBeatThread, ToBeatThread } from './heartbeat-thread.protocol';

const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
const data = workerData as BeatThreadData;
const encoder = new TextEncoder();
let figures: BeatFigures | undefined;
let refreshedAt = performance.now();

/**
 * Publishes the latest figures, stamped now. A main loop busy past an interval (a long
 * synchronous step, a starved CPU) does not delay this; one that has not refreshed the figures
 * for `wedgedAfterMs` is taken as wedged, and a `ready` worker then stops beating so the gateway
 * drops it.
 */
function publish(nats: NatsConnection): void {
  const state = liveness();
  if (!figures || !state.alive) return;
  nats.publish(data.subject, encoder.encode(JSON.stringify({ ...figures, sentAt: new Date().toISOString(), stalledMs: state.stalledMs })));
}

/** What a beat would say now: the answer to a gateway's probe (`WorkerAliveReply`). */
function liveness(): { alive: true; stalledMs: number } | { alive: false; reason: string } {
  if (!figures) return { alive: false, reason: 'its own server is not connected to NATS' };
  const age = performance.now() - refreshedAt;
  if (figures.status === 'ready' && age > data.wedgedAfterMs) return { alive: false, reason: `its main loop has been silent for ${Math.round(age / 1000)} s` };
  return { alive: true, stalledMs: Math.max(0, Math.round(age - data.intervalMs)) };
}

async function receive(nats: NatsConnection, message: ToBeatThread): Promise<void> {
  if (message.type === 'pause') {
    figures = undefined;
    return;
  }
  figures = message.figures;
  refreshedAt = performance.now();
  if (message.id === undefined) return;
  let reply: FromBeatThread;
  try {
    publish(nats);
    await nats.flush();
    reply = { type: 'sent', id: message.id };
  } catch (error) {
    reply = { type: 'failed', id: message.id, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
}

async function main(): Promise<void> {
  const { connect } = await import('nats');
  const nats = await connect(data.connect);
  parentPort?.on('message', (message: ToBeatThread) => void receive(nats, message));
  setInterval(() => publish(nats), data.intervalMs);
  // Answered from this thread: a probe must not wait on a main loop busy with a prefill.
  nats.subscribe(data.probeSubject, { callback: (_err, message) => message.respond(encoder.encode(JSON.stringify(liveness()))) });
}

// A failure ends the thread with an 'error' event, which the main thread logs.
void main();
