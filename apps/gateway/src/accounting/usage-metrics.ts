import { Injectable } from '@nestjs/common';
import type { GenerateResult } from '@weft/contracts';
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The usage totals as Prometheus counters. Labels are bounded on purpose: `model` (ids from the
 * registry: a request for an unknown model is refused before it is counted) and `quota` (four
 * names), never the user. Per-user figures are what `/v1/admin/usage` is for.
 */
@Injectable()
export class UsageMetrics {
  /** A registry of its own: several gateways in one test process must not share counters. */
  readonly registry = new Registry();
  private readonly turns = this.counter('weft_gateway_turns_total', 'Agent turns ended', ['model']);
  private readonly generations = this.counter('weft_gateway_generations_total', 'Generations of agent turns and the compatible APIs', ['model']);
  private readonly tokens = this.counter('weft_gateway_tokens_total', 'Tokens by kind: prompt, cached, evaluated, completion', ['model', 'kind']);
  private readonly toolCalls = this.counter('weft_gateway_tool_calls_total', 'Tool calls of agent turns', []);
  private readonly sandboxSeconds = this.counter('weft_gateway_sandbox_seconds_total', 'Wall-clock seconds of sandbox commands', []);
  private readonly quotaRejections = this.counter('weft_gateway_quota_rejections_total', 'Requests, turns, generations and commands refused by a quota', ['quota']);

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'weft_gateway_process_' });
  }

  generation(model: string, usage: GenerateResult['usage']): void {
    this.generations.inc({ model });
    this.tokens.inc({ model, kind: 'prompt' }, usage.promptTokens);
    this.tokens.inc({ model, kind: 'cached' }, usage.cachedTokens ?? 0);
    this.tokens.inc({ model, kind: 'evaluated' }, usage.evaluatedTokens ?? usage.promptTokens);
    this.tokens.inc({ model, kind: 'completion' }, usage.completionTokens);
  }

  turn(model: string, toolCalls: number): void {
    this.turns.inc({ model });
    this.toolCalls.inc(toolCalls);
  }

  sandboxRun(ms: number): void {
    this.sandboxSeconds.inc(ms / 1000);
  }

  quotaRejected(quota: string): void {
    this.quotaRejections.inc({ quota });
  }

  private counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }
}
