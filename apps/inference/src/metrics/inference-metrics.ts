import type { GenerateResult, WorkerModelStatus } from '@weft/contracts';
import type { KvStateEvent } from '../drivers/inference-driver';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface MetricsSource {
  status(): Promise<WorkerModelStatus[]>;
  readonly running: number;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const INTER_TOKEN_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28];

/**
 * The worker's Prometheus metrics, in a registry of its own (several workers in one test process
 * must not share one). Queue depth and free sequences are read from the drivers on each scrape.
 */
export class InferenceMetrics {
  readonly registry = new Registry();
  private readonly generated: Counter<'model'>;
  private readonly evaluated: Counter<'model'>;
  private readonly cached: Counter<'model'>;
  private readonly prompt: Counter<'model'>;
  private readonly requests: Counter<'model' | 'outcome'>;
  private readonly busy: Counter<'model'>;
  private readonly ttft: Histogram<'model'>;
  private readonly interToken: Histogram<'model'>;
  private readonly loadTime: Gauge<'model'>;
  private readonly kvStates: Counter<'model' | 'event'>;

  private source?: MetricsSource;

  constructor(workerId: string) {
    const status = async () => (await this.source?.status()) ?? [];
    const inFlight = () => this.source?.running ?? 0;
    this.registry.setDefaultLabels({ worker: workerId });
    collectDefaultMetrics({ register: this.registry, prefix: 'weft_inference_process_' });
    const registers = [this.registry];
    this.generated = new Counter({ name: 'weft_inference_tokens_generated_total', help: 'Tokens generated', labelNames: ['model'], registers });
    this.evaluated = new Counter({ name: 'weft_inference_tokens_evaluated_total', help: 'Prompt tokens evaluated', labelNames: ['model'], registers });
    this.cached = new Counter({ name: 'weft_inference_tokens_cached_total', help: 'Prompt tokens reused from the KV cache', labelNames: ['model'], registers });
    this.prompt = new Counter({ name: 'weft_inference_prompt_tokens_total', help: 'Prompt tokens, cached or not', labelNames: ['model'], registers });
    this.requests = new Counter({ name: 'weft_inference_requests_total', help: 'Generations by outcome', labelNames: ['model', 'outcome'], registers });
    this.busy = new Counter({ name: 'weft_inference_busy_rejections_total', help: 'Requests refused with INFERENCE.BUSY', labelNames: ['model'], registers });
    this.ttft = new Histogram({ name: 'weft_inference_time_to_first_token_seconds', help: 'Time to first token, queue wait included', labelNames: ['model'], buckets: LATENCY_BUCKETS, registers });
    this.interToken = new Histogram({ name: 'weft_inference_inter_token_seconds', help: 'Time between streamed deltas', labelNames: ['model'], buckets: INTER_TOKEN_BUCKETS, registers });
    this.loadTime = new Gauge({ name: 'weft_inference_model_load_seconds', help: 'How long the model took to load', labelNames: ['model'], registers });
    this.kvStates = new Counter({
      name: 'weft_inference_kv_states_total',
      help: 'Evicted sessions\' KV states saved to disk and restored (or failing to), with KV_STATE_DIR set',
      labelNames: ['model', 'event'],
      registers,
    });
    new Gauge({ name: 'weft_inference_in_flight', help: 'Generations running or queued', registers, collect() { this.set(inFlight()); } });
    const perModel = (name: string, help: string, read: (m: WorkerModelStatus) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['model'],
        registers,
        async collect() {
          for (const model of await status()) this.set({ model: model.id }, read(model));
        },
      });
    perModel('weft_inference_queue_depth', 'Requests waiting for a sequence', (m) => m.queued);
    perModel('weft_inference_free_sequences', 'Sequences not generating', (m) => m.freeSequences);
    perModel('weft_inference_cached_sessions', 'Sessions whose KV cache the worker holds', (m) => m.cachedSessions.length);
  }

  /** Where the gauges read capacity from on each scrape. */
  attach(source: MetricsSource): void {
    this.source = source;
  }

  modelLoaded(model: string, seconds: number): void {
    this.loadTime.set({ model }, seconds);
  }

  kvState(model: string, event: KvStateEvent): void {
    this.kvStates.inc({ model, event });
  }

  interTokenGap(model: string, seconds: number): void {
    this.interToken.observe({ model }, seconds);
  }

  completed(model: string, result: GenerateResult): void {
    const { usage, timings } = result;
    this.requests.inc({ model, outcome: 'ok' });
    this.generated.inc({ model }, usage.completionTokens);
    this.prompt.inc({ model }, usage.promptTokens);
    this.evaluated.inc({ model }, usage.evaluatedTokens ?? usage.promptTokens);
    this.cached.inc({ model }, usage.cachedTokens ?? 0);
    if (timings.timeToFirstTokenMs !== undefined) this.ttft.observe({ model }, timings.timeToFirstTokenMs / 1000);
  }

  failed(model: string, code: string): void {
    this.requests.inc({ model, outcome: code });
    if (code === 'INFERENCE.BUSY') this.busy.inc({ model });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
