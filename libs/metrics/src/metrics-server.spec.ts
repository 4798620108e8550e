import { createLogger } from '@weft/logging';
import { Counter } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { MetricsServer } from './metrics-server';
import { serviceRegistry } from './service-registry';
import { volumeFreeBytesGauge } from './volume-gauge';

describe('MetricsServer', () => {
  let server: MetricsServer | undefined;
  afterEach(() => server?.close());

  it("serves the registry's metrics in Prometheus text on /metrics, with process metrics under the service's prefix", async () => {
    const registry = serviceRegistry('demo', { worker: 'w1' });
    new Counter({ name: 'weft_demo_things_total', help: 'Things', registers: [registry] }).inc(3);
    server = new MetricsServer(registry, createLogger('test', 'silent'));
    const port = await server.listen(0, '127.0.0.1');

    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const body = await res.text();
    expect(body).toContain('weft_demo_things_total{worker="w1"} 3');
    expect(body).toMatch(/^weft_demo_process_process_cpu_seconds_total\{worker="w1"\} \d+/m);
  });

  it('answers 404 to any other path or method', async () => {
    server = new MetricsServer(serviceRegistry('demo'), createLogger('test', 'silent'));
    const port = await server.listen(0, '127.0.0.1');
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' })).status).toBe(404);
  });
});

describe('volumeFreeBytesGauge', () => {
  it('reports the free bytes of each readable volume and leaves out one that does not exist', async () => {
    const registry = serviceRegistry('demo');
    volumeFreeBytesGauge(registry, 'weft_demo_volume_free_bytes', { tmp: '/tmp', gone: '/no/such/volume' });
    const values = (await registry.getSingleMetric('weft_demo_volume_free_bytes')!.get()).values;
    expect(values.map((v) => v.labels.volume)).toEqual(['tmp']);
    expect(values[0]!.value).toBeGreaterThan(0);
  });
});
