import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertExpressions, dashboardExpressions, exposedSeries, unknownMetrics } from '../test/support/metric-names';
import { composeWith, gatewayUrl, stackEnv } from './support/stack';
import { containerOf, waitStackHealthy } from './support/services';

const WORKERS = ['inference', 'tools', 'sandbox'] as const;
/** The port compose gives every worker's /metrics (METRICS_PORT in docker-compose.yml). */
const METRICS_PORT = 9464;
const monitoringEnv = { ...stackEnv, WEFT_PROMETHEUS_PORT: String(Number(stackEnv.WEFT_PORT) + 2001) }; // +2000 is the SSO e2e's provider
const prometheusUrl = `http://127.0.0.1:${monitoringEnv.WEFT_PROMETHEUS_PORT}`;

/** The worker's /metrics as seen inside its container (the port is not published); `docker exec`, quicker than compose's. */
function scrapeWorker(service: (typeof WORKERS)[number]): string {
  // exitCode, not exit(): stdout to a pipe is written asynchronously, and exit() would cut a scrape
  // past the pipe's 64 KiB (a worker's histograms grow past that once the other e2e files have run).
  const script = `fetch('http://127.0.0.1:${METRICS_PORT}/metrics').then(async (r) => { process.stdout.write(await r.text()); process.exitCode = r.ok ? 0 : 1; }, (e) => { console.error(e.message); process.exitCode = 1; })`;
  return execFileSync('docker', ['exec', containerOf(service), 'node', '-e', script], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
}

async function scrapeGateway(): Promise<string> {
  const res = await fetch(`${gatewayUrl}/metrics`, { headers: { authorization: `Bearer ${stackEnv.WEFT_ADMIN_TOKEN}` } });
  expect(res.status).toBe(200);
  return res.text();
}

describe('metrics on every service of the compose stack', () => {
  beforeAll(() => waitStackHealthy());

  it("answers with Prometheus text on every service's metrics port, with every metric the dashboard and alerts read", async () => {
    const texts: Record<string, string> = { gateway: await scrapeGateway() };
    for (const worker of WORKERS) texts[worker] = scrapeWorker(worker);
    for (const [service, text] of Object.entries(texts)) {
      expect(text, service).toMatch(new RegExp(`^# TYPE weft_${service}_process_process_cpu_seconds_total counter$`, 'm'));
    }
    const exported = new Set(Object.values(texts).flatMap((text) => [...exposedSeries(text)]));
    expect(unknownMetrics(dashboardExpressions(), exported)).toEqual([]);
    expect(unknownMetrics(alertExpressions(), exported)).toEqual([]);
  });

  describe('with the monitoring profile', () => {
    beforeAll(() => {
      composeWith(monitoringEnv, '--profile', 'monitoring', 'up', '-d', 'prometheus');
    });
    // The stack is shared with the other e2e files, which count its containers.
    afterAll(() => {
      composeWith(monitoringEnv, '--profile', 'monitoring', 'rm', '-s', '-f', '-v', 'prometheus');
    });

    it('Prometheus scrapes every service as up, with the alert rules loaded', async () => {
      const jobs = ['weft-gateway', 'weft-inference', 'weft-tools', 'weft-sandbox'];
      let health: Record<string, string[]> = {};
      // One scrape interval (15 s) after start, every target has been scraped once.
      const deadline = Date.now() + 90_000;
      while (Date.now() < deadline) {
        health = await targetHealth(prometheusUrl).catch(() => ({}));
        if (jobs.every((job) => health[job]?.length && health[job].every((h) => h === 'up'))) break;
        await new Promise((r) => setTimeout(r, 1000));
      }
      expect(Object.fromEntries(jobs.map((job) => [job, health[job]]))).toEqual(Object.fromEntries(jobs.map((job) => [job, ['up']])));

      const rules = (await (await fetch(`${prometheusUrl}/api/v1/rules`)).json()) as { data: { groups: Array<{ rules: Array<{ name: string; health: string }> }> } };
      const loaded = rules.data.groups.flatMap((g) => g.rules);
      expect(loaded.map((r) => r.name).sort()).toEqual([...alertExpressions().keys()].sort());
    });
  });
});

async function targetHealth(base: string): Promise<Record<string, string[]>> {
  const res = await fetch(`${base}/api/v1/targets?state=active`);
  const body = (await res.json()) as { data: { activeTargets: Array<{ labels: { job: string }; health: string }> } };
  const byJob: Record<string, string[]> = {};
  for (const target of body.data.activeTargets) (byJob[target.labels.job] ??= []).push(target.health);
  return byJob;
}
