export const INFERENCE_CONFIG = Symbol('InferenceConfig');
export const MODELS_CONFIG = Symbol('ModelsConfig');
export const LOGGER = Symbol('Logger');
export const INFERENCE_DRIVERS = Symbol('InferenceDrivers');
export const INFERENCE_METRICS = Symbol('InferenceMetrics');
export const WORKER_IDENTITY = Symbol('WorkerIdentity');
export const EVENT_BUS = Symbol('NatsEventBus');

/** Who this worker is in the fleet. */
export interface WorkerIdentity {
  workerId: string;
  startedAt: string;
}

export const SERVER_LINK = Symbol('ServerLink');

/**
 * The Nest server's own NATS connection, known only once the app exists: draining flushes it so
 * that the last replies leave before the server closes.
 */
export interface ServerLink {
  /** Round trip on the server's connection; false while it is not connected (before listen, after close). */
  flush: () => Promise<boolean>;
}
