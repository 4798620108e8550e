import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * A registry of the service's own (several workers in one test process must not share one) with
 * Node's process metrics under the prefix `weft_<service>_process_`, as the gateway and inference
 * named them first (so `weft_tools_process_process_cpu_seconds_total`).
 */
export function serviceRegistry(service: string, defaultLabels: Record<string, string> = {}): Registry {
  const registry = new Registry();
  registry.setDefaultLabels(defaultLabels);
  collectDefaultMetrics({ register: registry, prefix: `weft_${service}_process_` });
  return registry;
}
