import { positiveInt } from './fields';

/**
 * What one generate request may ask a worker to compile (libs/contracts' request-cost.ts
 * explains the costs). The gateway refuses a request past them with a 400 naming the limit and
 * the setting; inference workers check again before they build a grammar. Set the same values
 * on both (a raised limit on the gateway alone is still refused by the workers).
 */
export const requestLimitsEnv = {
  /** UTF-8 bytes of one JSON Schema (a reply format, one tool's parameters). */
  REQUEST_SCHEMA_MAX_BYTES: positiveInt().default(128 * 1024),
  /** Nesting of objects and arrays in one JSON Schema's JSON text. */
  REQUEST_SCHEMA_MAX_DEPTH: positiveInt().default(64),
  /** Names under all of one schema's `properties` objects, summed. */
  REQUEST_SCHEMA_MAX_PROPERTIES: positiveInt().default(2000),
  /** `enum` values and `oneOf`/`anyOf`/`allOf` branches of one schema, summed (their grammar grows faster than linearly). */
  REQUEST_SCHEMA_MAX_ALTERNATIVES: positiveInt().default(1000),
  /** Tools in one request. */
  REQUEST_MAX_TOOLS: positiveInt().default(128),
  /** UTF-8 bytes of all of one request's tool parameter schemas and descriptions together. */
  REQUEST_TOOLS_MAX_BYTES: positiveInt().default(512 * 1024),
  /** Properties of all of one request's tool parameter schemas together. */
  REQUEST_TOOLS_MAX_PROPERTIES: positiveInt().default(5000),
};

/** The settings above as the limits libs/contracts' checks take. */
export function requestCostLimitsOf(config: { [K in keyof typeof requestLimitsEnv]: number }) {
  return {
    schemaMaxBytes: config.REQUEST_SCHEMA_MAX_BYTES,
    schemaMaxDepth: config.REQUEST_SCHEMA_MAX_DEPTH,
    schemaMaxProperties: config.REQUEST_SCHEMA_MAX_PROPERTIES,
    schemaMaxAlternatives: config.REQUEST_SCHEMA_MAX_ALTERNATIVES,
    maxTools: config.REQUEST_MAX_TOOLS,
    toolsMaxBytes: config.REQUEST_TOOLS_MAX_BYTES,
    toolsMaxProperties: config.REQUEST_TOOLS_MAX_PROPERTIES,
  };
}
