import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export const MONITORING_DIR = join(__dirname, '../../deploy/monitoring');
export const ALERTS_FILE = join(MONITORING_DIR, 'alerts.yml');
export const DASHBOARD_FILE = join(MONITORING_DIR, 'grafana/weft.json');

/** Words of PromQL that stand where a metric name could, but are not one. */
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);
/** Series Prometheus makes itself for every target. */
export const PROMETHEUS_SERIES = new Set(['up']);

/**
 * The metric names a PromQL expression reads: identifiers that are not functions (followed by
 * `(`), keywords, label names (inside `{}` or a `by (...)` clause), strings or durations.
 */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\[[^\]]*\]/g, '');
  const names = new Set<string>();
  for (const match of bare.matchAll(/(?<![\w.])([a-zA-Z_:][\w:]*)\b(?!\s*\()/g)) {
    const name = match[1]!;
    if (!KEYWORDS.has(name.toLowerCase())) names.add(name);
  }
  return [...names];
}

interface RuleFile {
  groups: Array<{ name: string; rules: Array<{ alert?: string; record?: string; expr: string }> }>;
}

/** Every alert's (or recording rule's) expression, by its name. */
export function alertExpressions(path = ALERTS_FILE): Map<string, string> {
  const file = parse(readFileSync(path, 'utf8')) as RuleFile;
  return new Map(file.groups.flatMap((g) => g.rules.map((r) => [r.alert ?? r.record ?? '?', r.expr] as const)));
}

interface Panel {
  title?: string;
  targets?: Array<{ expr?: string }>;
  panels?: Panel[];
}

/** Every panel query of the dashboard, by `panel title #n`. */
export function dashboardExpressions(path = DASHBOARD_FILE): Map<string, string> {
  const dashboard = JSON.parse(readFileSync(path, 'utf8')) as { panels: Panel[] };
  const out = new Map<string, string>();
  const visit = (panels: Panel[]) => {
    for (const panel of panels) {
      panel.targets?.forEach((t, i) => t.expr && out.set(`${panel.title ?? '?'} #${i + 1}`, t.expr));
      if (panel.panels) visit(panel.panels);
    }
  };
  visit(dashboard.panels);
  return out;
}

/** The series names a metric family of this type exposes (a histogram's `_bucket`, `_sum`, `_count`). */
export function seriesNames(name: string, type: string): string[] {
  if (type === 'histogram') return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
  if (type === 'summary') return [name, `${name}_sum`, `${name}_count`];
  return [name];
}

/** The series names of a Prometheus text exposition, from its `# TYPE` lines. */
export function exposedSeries(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) for (const n of seriesNames(match[1]!, match[2]!)) names.add(n);
  return names;
}

/** `where: metric` for each metric the expressions read that is in none of `exported`. */
export function unknownMetrics(expressions: Map<string, string>, exported: Set<string>): string[] {
  const missing: string[] = [];
  for (const [where, expr] of expressions) {
    for (const name of metricNames(expr)) if (!exported.has(name) && !PROMETHEUS_SERIES.has(name)) missing.push(`${where}: ${name}`);
  }
  return missing;
}
