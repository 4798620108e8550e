import type { WorkerHeartbeat } from '@weft/contracts';

/** The heartbeat thread's start-up data (structured-cloned into the thread). */
export interface BeatThreadData {
  /** `nats.connect` options: the same server and user as the worker's own connections. */
  connect: { servers: string[]; user?: string; pass?: string; tls?: { caFile: string }; maxReconnectAttempts: number; name: string };
  subject: string;
  /** This worker's liveness probe (`inferenceWorkerAliveSubject`), answered by the thread. */
  probeSubject: string;
  intervalMs: number;
  /** A `ready` worker whose main loop has not refreshed its figures for this long is wedged: no beats. */
  wedgedAfterMs: number;
}

/** A beat's content as the main loop last saw it; the thread stamps `sentAt` and `stalledMs`. */
export type BeatFigures = Omit<WorkerHeartbeat, 'sentAt' | 'stalledMs'>;

export type ToBeatThread =
  /** New figures; with `id`, published at once and flushed, then answered with `sent`. */
  | { type: 'figures'; figures: BeatFigures; id?: number }
  /** No beats until the next figures (the worker's server is not connected). */
  | { type: 'pause' };

export type FromBeatThread = { type: 'sent'; id: number } | { type: 'failed'; id: number; message: string };
