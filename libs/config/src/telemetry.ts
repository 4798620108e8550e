import { z } from 'zod';

/** Unset and empty alike (compose passes `${OTEL_EXPORTER_OTLP_ENDPOINT:-}` as an empty string). */
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

/** OpenTelemetry traces (docs/tracing.md): off unless an OTLP endpoint is set. Every service reads these. */
export const telemetryEnv = {
  /** OTLP/HTTP collector base URL (`http://collector:4318`); spans go to `<url>/v1/traces`. Unset: tracing is off. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optional(z.url({ message: 'must be a URL (the OTLP/HTTP collector, e.g. http://collector:4318)' })),
  /** The full traces URL instead (`http://collector:4318/v1/traces`); wins over OTEL_EXPORTER_OTLP_ENDPOINT. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optional(z.url({ message: 'must be a URL (the OTLP/HTTP traces endpoint)' })),
  /** `service.name` on this process's spans; unset: `weft-gateway`, `weft-inference`, `weft-tools` or `weft-sandbox`. */
  OTEL_SERVICE_NAME: optional(z.string().min(1)),
};
