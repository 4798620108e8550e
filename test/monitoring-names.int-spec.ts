import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inferenceConfigSchema } from '@weft/config';
import { createLogger } from '@weft/logging';
import type { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageMetrics } from '../apps/gateway/src/accounting/usage-metrics';
import { InferenceMetrics } from '../apps/inference/src/metrics/inference-metrics';
import { MetricsLifecycle } from '../apps/inference/src/metrics/metrics.lifecycle';
import { SandboxMetrics } from '../apps/sandbox/src/metrics/sandbox-metrics';
import { ToolsMetrics } from '../apps/tools/src/metrics/tools-metrics';
import { ALERTS_FILE, alertExpressions, dashboardExpressions, metricNames, seriesNames, unknownMetrics } from './support/metric-names';

/**
 * The dashboard and the alert rules read only metrics the services export: each service's
 * registry is built as its module builds it, and every name in their PromQL must be in one.
 * The e2e tier checks the same against the running stack's scrapes (e2e/metrics.e2e-spec.ts).
 */
describe('monitoring: dashboard and alert rules against the exported metrics', () => {
  let dir: string;
  const exported = new Set<string>();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-monitoring-'));
    const inference = new InferenceMetrics('w1');
    const config = inferenceConfigSchema.parse({ MODELS_DIR: dir, KV_STATE_DIR: dir, METRICS_PORT: '0' });
    new MetricsLifecycle(config, inference, createLogger('test', 'silent'));
    const registries: Registry[] = [new UsageMetrics().registry, inference.registry, new ToolsMetrics(dir).registry, new SandboxMetrics(dir).registry];
    for (const registry of registries) {
      for (const metric of registry.getMetricsAsArray()) for (const name of seriesNames(metric.name, String(metric.type))) exported.add(name);
    }
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('finds the metric names in PromQL, leaving out functions, labels, keywords and durations', () => {
    expect(
      metricNames('histogram_quantile(0.9, sum by (model, le) (rate(weft_a_bucket{outcome!~"ok|x_y"}[5m]))) > 3 * sum(rate(weft_b_total[1d])) and absent(up == 1)'),
    ).toEqual(['weft_a_bucket', 'weft_b_total', 'up']);
    expect(unknownMetrics(new Map([['panel #1', 'rate(weft_tools_calls_total[5m]) / weft_nowhere_total']]), exported)).toEqual(['panel #1: weft_nowhere_total']);
  });

  it('reads only exported metrics in every dashboard panel, and shows every service', () => {
    const panels = dashboardExpressions();
    expect(panels.size).toBeGreaterThan(20);
    expect(unknownMetrics(panels, exported)).toEqual([]);
    const used = [...panels.values()].flatMap(metricNames).join(' ');
    for (const service of ['gateway', 'inference', 'tools', 'sandbox']) expect(used).toContain(`weft_${service}_`);
  });

  it('reads only exported metrics in every alert rule', () => {
    const rules = alertExpressions();
    expect([...rules.keys()]).toEqual(
      expect.arrayContaining(['WeftServiceDown', 'WeftInferenceQueueBackingUp', 'WeftQuotaRejectionsSpiking', 'WeftVolumeAlmostFull', 'WeftInferenceErrors']),
    );
    expect(unknownMetrics(rules, exported)).toEqual([]);
  });

  it('passes promtool check rules (Debian package prometheus)', () => {
    let output: string;
    try {
      output = execFileSync('promtool', ['check', 'rules', ALERTS_FILE], { encoding: 'utf8' });
    } catch (error) {
      const e = error as { code?: string; stdout?: string; stderr?: string };
      if (e.code === 'ENOENT') throw new Error('promtool is not installed: apt-get install prometheus (.ci/run does)');
      throw new Error(`promtool check rules failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
    }
    expect(output).toContain('SUCCESS');
  });
});
