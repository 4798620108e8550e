/** Injection tokens of the process-wide connections. */
export const REDIS = Symbol('REDIS');
export const LOGGER = Symbol('LOGGER');
