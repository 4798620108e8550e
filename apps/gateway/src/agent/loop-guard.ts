import type { ChatMessage, InterruptReason, ToolCall } from '@weft/contracts';
import type { ToolOutcome } from '../agent-core/ports';

export interface Interruption {
  reason: InterruptReason;
  message: string;
}

/**
 * Spots a model going round in circles: the same tool with identical arguments several times in
 * a row, or the same error coming back again and again within the turn.
 */
export class LoopGuard {
  private lastCall?: string;
  private streak = 0;
  private readonly errors = new Map<string, number>();

  constructor(
    private readonly repeatLimit: number,
    private readonly errorLimit: number,
  ) {}

  /** Replays a resumed turn's calls and results so the counts carry on where they were. */
  seed(turnMessages: readonly ChatMessage[]): void {
    for (const message of turnMessages) {
      if (message.role === 'assistant') for (const call of message.toolCalls ?? []) this.track(call);
      if (message.role === 'tool' && /^[A-Z]+\.[A-Z_]+:/.test(message.content)) this.countError(message.content);
    }
  }

  /** Before a call runs: the Nth identical call in a row is not run. */
  beforeCall(call: ToolCall): Interruption | undefined {
    const streak = this.track(call);
    if (streak < this.repeatLimit) return undefined;
    return { reason: 'loop_detected', message: `${call.name} was called ${streak} times in a row with the same arguments` };
  }

  afterResult(outcome: ToolOutcome): Interruption | undefined {
    if (!outcome.isError) return undefined;
    const count = this.countError(outcome.output);
    if (count < this.errorLimit) return undefined;
    const firstLine = outcome.output.split('\n', 1)[0]?.slice(0, 300) ?? '';
    return { reason: 'repeated_error', message: `the same error came back ${count} times: ${firstLine}` };
  }

  private track(call: ToolCall): number {
    const key = `${call.name}\0${stableJson(call.arguments)}`;
    this.streak = key === this.lastCall ? this.streak + 1 : 1;
    this.lastCall = key;
    return this.streak;
  }

  /** Numbers (durations, line counts) differ between two runs of the same failure; they are ignored. */
  private countError(output: string): number {
    const key = output.replace(/\d+/g, '#').slice(0, 2000);
    const count = (this.errors.get(key) ?? 0) + 1;
    this.errors.set(key, count);
    return count;
  }
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
