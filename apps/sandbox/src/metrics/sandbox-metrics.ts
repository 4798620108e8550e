import { AppError, ErrorCode, type ExecResult } from '@weft/contracts';
import { serviceRegistry, volumeFreeBytesGauge } from '@weft/metrics';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** `code` and `command` as requested; `long_` when it came through the long-run queue. */
export type RunKind = 'code' | 'command' | 'long_code' | 'long_command';

/** What the gauges read on each scrape; each part is attached by the piece that owns it. */
export interface SandboxGaugeSources {
  warmIdle(): number;
  warmTarget(): number;
  sessionContainers(): number;
  proxyNetworks(): number;
  /** Long-run jobs by BullMQ state; absent when the worker takes no long runs (no REDIS_URL). */
  longRunJobs?(): Promise<Record<string, number>>;
}

const RUN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const JOB_STATES = ['waiting', 'active', 'delayed'] as const;

/**
 * The sandbox worker's Prometheus metrics. Labels stay bounded: a run's `kind`, its `outcome`
 * (`ok`, `exit_nonzero`, `timed_out`, `oom_killed`, or the error code it failed with), `start`
 * (`warm`: a pooled or reused container; `cold`: one started for it); never a user or a command.
 */
export class SandboxMetrics {
  readonly registry: Registry;
  private readonly runs: Counter<'kind' | 'outcome'>;
  private readonly starts: Counter<'kind' | 'start'>;
  private readonly durations: Histogram<'kind'>;
  private readonly inFlight: Gauge<'kind'>;
  private readonly queueWait: Histogram;
  private sources: Partial<SandboxGaugeSources> = {};

  constructor(workspacesDir: string) {
    this.registry = serviceRegistry('sandbox');
    const registers = [this.registry];
    const read = () => this.sources;
    this.runs = new Counter({ name: 'weft_sandbox_runs_total', help: 'Runs by kind and outcome', labelNames: ['kind', 'outcome'], registers });
    this.starts = new Counter({ name: 'weft_sandbox_run_starts_total', help: 'Runs by whether their container was already up (warm) or started for them (cold)', labelNames: ['kind', 'start'], registers });
    this.durations = new Histogram({ name: 'weft_sandbox_run_duration_seconds', help: 'Wall-clock time of a run, container start included', labelNames: ['kind'], buckets: RUN_BUCKETS, registers });
    this.inFlight = new Gauge({ name: 'weft_sandbox_runs_in_flight', help: 'Runs going on now', labelNames: ['kind'], registers });
    this.queueWait = new Histogram({ name: 'weft_sandbox_long_run_queue_wait_seconds', help: 'How long a long run waited in the queue before a worker took it', buckets: WAIT_BUCKETS, registers });
    const gauge = (name: string, help: string, value: (s: Partial<SandboxGaugeSources>) => number | undefined) =>
      new Gauge({ name, help, registers, collect() { this.set(value(read()) ?? 0); } });
    gauge('weft_sandbox_warm_containers', 'Pooled containers started and idle, waiting for a snippet', (s) => s.warmIdle?.());
    gauge('weft_sandbox_warm_target', 'Idle pooled containers the pool aims for now (grows with demand)', (s) => s.warmTarget?.());
    gauge('weft_sandbox_session_containers', "Sessions' containers this worker holds", (s) => s.sessionContainers?.());
    gauge('weft_sandbox_proxy_networks', "Users' proxy networks this worker has made or joined", (s) => s.proxyNetworks?.());
    new Gauge({
      name: 'weft_sandbox_long_run_jobs',
      help: 'Long runs in the queue by state (waiting, active, delayed), as every worker sees it',
      labelNames: ['state'],
      registers,
      async collect() {
        const counts = await read().longRunJobs?.();
        if (!counts) return;
        for (const state of JOB_STATES) this.set({ state }, counts[state] ?? 0);
      },
    });
    volumeFreeBytesGauge(this.registry, 'weft_sandbox_volume_free_bytes', { workspaces: workspacesDir });
  }

  /** Where the gauges read from; later calls add to earlier ones. */
  watch(sources: Partial<SandboxGaugeSources>): void {
    this.sources = { ...this.sources, ...sources };
  }

  /** Runs one run, counting it by outcome and by whether its container was warm. */
  async track<T extends { result: ExecResult; warm: boolean }>(kind: RunKind, run: () => Promise<T>): Promise<T> {
    this.inFlight.inc({ kind });
    const stop = this.durations.startTimer({ kind });
    try {
      const done = await run();
      this.runs.inc({ kind, outcome: outcomeOf(done.result) });
      this.starts.inc({ kind, start: done.warm ? 'warm' : 'cold' });
      return done;
    } catch (error) {
      this.runs.inc({ kind, outcome: error instanceof AppError ? error.code : ErrorCode.Internal });
      throw error;
    } finally {
      stop();
      this.inFlight.dec({ kind });
    }
  }

  /** A long run was taken from the queue `seconds` after it was added. */
  longRunWaited(seconds: number): void {
    this.queueWait.observe(Math.max(0, seconds));
  }
}

function outcomeOf(result: ExecResult): string {
  if (result.timedOut) return 'timed_out';
  if (result.oomKilled) return 'oom_killed';
  return result.exitCode === 0 ? 'ok' : 'exit_nonzero';
}
