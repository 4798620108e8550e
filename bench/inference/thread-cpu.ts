import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's utime and stime (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU time (ms) per thread of a process, by the thread's name: a snapshot from /proc. */
function threadCpu(pid: number | 'self'): Map<string, number> {
  const byName = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // The name sits in parentheses and may hold spaces; the fields after it are fixed.
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
      const key = pid === 'self' && tid === String(process.pid) ? 'main thread' : name;
      byName.set(key, (byName.get(key) ?? 0) + ms);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byName;
}

function pidsOf(command: string): number[] {
  try {
    return execFileSync('pgrep', ['-x', command], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * The CPU time this process's threads (by name, the main thread apart) and the NATS and Redis
 * servers used between two snapshots. On a host with as many cores as llama.cpp has threads,
 * every millisecond of it outside the decodes' own threads is taken from them.
 */
export class CpuMeter {
  private readonly others: (readonly [string, number])[];

  /** `processes`: more processes to count whole, by the name to show them under. */
  constructor(processes: Record<string, number | undefined> = {}) {
    this.others = [
      ...pidsOf('nats-server').map((pid) => ['nats-server', pid] as const),
      ...pidsOf('redis-server').map((pid) => ['redis-server', pid] as const),
      ...Object.entries(processes).flatMap(([name, pid]) => (pid === undefined ? [] : [[name, pid] as const])),
    ];
  }

  snapshot(): Map<string, number> {
    const all = threadCpu('self');
    for (const [name, pid] of this.others) {
      for (const ms of threadCpu(pid).values()) all.set(name, (all.get(name) ?? 0) + ms);
    }
    return all;
  }

  /** CPU ms used since `before`, by thread name (those that used none left out). */
  since(before: Map<string, number>): Map<string, number> {
    const used = new Map<string, number>();
    for (const [name, ms] of this.snapshot()) {
      const delta = ms - (before.get(name) ?? 0);
      if (delta > 0) used.set(name, delta);
    }
    return used;
  }
}
