import { inferenceWorkerAliveSubject } from '@weft/contracts';
import { ErrorCode as NatsErrorCode, Events, type NatsConnection, NatsError } from 'nats';
import type { ProbeVerdict, WorkerProbe } from './fleet-registry';

/** How long a probe waits for its answer; a starved worker may answer late, and is asked again. */
export const PROBE_TIMEOUT_MS = 3_000;

/**
 * Asks a silent worker's heartbeat thread whether it lives (`inferenceWorkerAliveSubject`). NATS
 * answers "no responders" at once when no process holds the subscription: the worker died (its
 * connection closed with it), or it is of a version that does not answer probes. While this
 * gateway's own connection is down nothing can be asked, and nothing the worker streams arrives
 * either: its generations are lost to this gateway, as they were before probes.
 */
export function natsWorkerProbe(nats: NatsConnection, timeoutMs = PROBE_TIMEOUT_MS): WorkerProbe {
  let connected = true;
  void (async () => {
    for await (const status of nats.status()) {
      if (status.type === Events.Disconnect) connected = false;
      else if (status.type === Events.Reconnect) connected = true;
    }
  })().catch(() => undefined);
  return async (workerId): Promise<ProbeVerdict> => {
    if (!connected) return { state: 'gone', reason: "this gateway's connection to NATS is down" };
    try {
      const reply = (await nats.request(inferenceWorkerAliveSubject(workerId), undefined, { timeout: timeoutMs })).json<{ alive: boolean; reason?: string }>();
      return reply.alive ? { state: 'alive' } : { state: 'gone', reason: reply.reason ?? 'it says it is not alive' };
    } catch (error) {
      if (error instanceof NatsError && error.code === NatsErrorCode.NoResponders) return { state: 'gone', reason: 'no process answers for it' };
      // A timeout: slow or cut off. Judged again after another beat, and dropped after MAX_SILENCE_MS.
      return connected ? { state: 'unknown' } : { state: 'gone', reason: "this gateway's connection to NATS is down" };
    }
  };
}
