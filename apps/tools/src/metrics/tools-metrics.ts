import { AppError, ErrorCode, type ToolCallRequest, type ToolCallResult } from '@weft/contracts';
import { serviceRegistry, volumeFreeBytesGauge } from '@weft/metrics';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The tools worker's Prometheus metrics. Labels stay bounded: `tool` is one of the contract's
 * tool names and `outcome` is `ok` or an error code, never a path or a workspace.
 */
export class ToolsMetrics {
  readonly registry: Registry;
  private readonly calls: Counter<'tool' | 'outcome'>;
  private readonly durations: Histogram<'tool'>;
  private readonly inFlight: Gauge<'tool'>;

  constructor(workspacesDir: string) {
    this.registry = serviceRegistry('tools');
    const registers = [this.registry];
    this.calls = new Counter({ name: 'weft_tools_calls_total', help: 'Tool calls by tool and outcome (ok or the error code)', labelNames: ['tool', 'outcome'], registers });
    this.durations = new Histogram({ name: 'weft_tools_call_duration_seconds', help: 'Time a tool call took in this worker', labelNames: ['tool'], buckets: DURATION_BUCKETS, registers });
    // The worker answers NATS requests as they come (no queue of its own): what runs is what waits.
    this.inFlight = new Gauge({ name: 'weft_tools_calls_in_flight', help: 'Tool calls running now', labelNames: ['tool'], registers });
    volumeFreeBytesGauge(this.registry, 'weft_tools_volume_free_bytes', { workspaces: workspacesDir });
  }

  /** Runs one call, counting it by its outcome: a result's error code, or the code of what it threw. */
  async track(tool: ToolCallRequest['tool'], call: () => Promise<ToolCallResult>): Promise<ToolCallResult> {
    this.inFlight.inc({ tool });
    const stop = this.durations.startTimer({ tool });
    try {
      const result = await call();
      this.calls.inc({ tool, outcome: result.isError ? (result.errorCode ?? ErrorCode.Internal) : 'ok' });
      return result;
    } catch (error) {
      this.calls.inc({ tool, outcome: error instanceof AppError ? error.code : ErrorCode.Internal });
      throw error;
    } finally {
      stop();
      this.inFlight.dec({ tool });
    }
  }
}
