import { execFileSync, spawn } from 'node:child_process';
import { containerOf, killService } from '../../e2e/support/services';
import type { TurnReport } from './client';

/**
 * Another process that keeps `cores` cores spinning (one worker thread each) until stopped: the
 * busy box the soak runs on. A separate process, so it competes with the stack as any job would.
 */
export function busyCores(cores: number): { stop: () => void } {
  if (cores <= 0) return { stop: () => undefined };
  const script = `const { Worker } = require('node:worker_threads'); for (let i = 0; i < ${cores}; i++) new Worker('for (;;) {}', { eval: true });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  return { stop: () => child.kill('SIGKILL') };
}

export interface Fault {
  name: string;
  /** Seconds into the load. */
  afterSeconds: number;
  /** When it happened (epoch ms), once it has. */
  at?: number;
  run(loadStarted: number): Promise<void>;
}

const actions: Record<string, { name: string; act: () => void }> = {
  // SIGKILL of the worker's process, as a crash or `docker kill` does; its restart policy brings it back.
  inference: { name: 'inference worker killed', act: () => killService('inference') },
  redis: { name: 'Redis restarted (docker restart)', act: () => execFileSync('docker', ['restart', containerOf('redis')], { stdio: 'ignore' }) },
};

/** `inference@200,redis@400` → the faults to inject, each at its second of the load. */
export function faultSchedule(spec: string): Fault[] {
  return spec
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [kind = '', seconds = ''] = part.split('@');
      const action = actions[kind];
      const afterSeconds = Number(seconds);
      if (!action || !Number.isFinite(afterSeconds)) throw new Error(`BENCH_FAULTS: "${part}" is not <${Object.keys(actions).join('|')}>@<seconds>`);
      const fault: Fault = {
        name: action.name,
        afterSeconds,
        run: async (loadStarted) => {
          await new Promise((r) => setTimeout(r, Math.max(0, loadStarted + afterSeconds * 1000 - Date.now())));
          fault.at = Date.now();
          action.act();
          console.log(`${new Date(fault.at).toISOString()} ${fault.name}`);
        },
      };
      return fault;
    });
}

/**
 * For each fault: how the turns in flight at that moment ended, and the latest of those ends,
 * counted from the fault; and the turns started within a minute after it that did not complete.
 */
export function faultReport(faults: Fault[], turns: TurnReport[]): string[] {
  const lines: string[] = [];
  for (const fault of faults) {
    if (fault.at === undefined) continue;
    const at = fault.at;
    const inFlight = turns.filter((t) => t.postedAt <= at && t.endedAt >= at);
    const after = turns.filter((t) => t.postedAt > at && t.postedAt <= at + 60_000 && t.outcome !== 'turn.completed');
    lines.push(`\n${fault.name} at ${fault.afterSeconds} s: ${inFlight.length} turns in flight`);
    for (const [outcome, group] of groupBy(inFlight, (t) => t.failure ?? t.outcome)) {
      const latest = Math.max(...group.map((t) => t.endedAt - at)) / 1000;
      lines.push(`  ${group.length} × ${outcome}, the last ${latest.toFixed(1)} s after the fault`);
    }
    for (const [outcome, group] of groupBy(after, (t) => t.failure ?? t.outcome)) {
      lines.push(`  started in the minute after it and not completed: ${group.length} × ${outcome}`);
    }
  }
  return lines;
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}
