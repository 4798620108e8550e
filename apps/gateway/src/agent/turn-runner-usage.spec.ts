import { AppError, type ChatMessage, ErrorCode } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import type { SandboxPort } from '../agent-core/ports';
import { TURN, setup, call } from './test/turn-runner-world';

describe('TurnRunner usage and context', () => {
  it('sums cached and evaluated prompt tokens into turn.completed', async () => {
    const t = setup([
      { toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.ts' } }], usage: 100, cached: 0 },
      { text: 'Fixed.', usage: 120, cached: 100 },
    ]);
    await t.run();
    expect(t.store.events.at(-1)).toMatchObject({
      type: 'turn.completed',
      usage: { promptTokens: 220, completionTokens: 10, cachedTokens: 100, evaluatedTokens: 120 },
    });
  });

  it('leaves the cache counts out when the worker does not report them', async () => {
    const t = setup([{ text: 'Fixed.' }]);
    await t.run();
    expect(t.store.events.at(-1)).toMatchObject({ type: 'turn.completed', usage: { promptTokens: 10, completionTokens: 5 } });
    expect(t.store.events.at(-1)).not.toHaveProperty('usage.cachedTokens');
  });

  it('replaces older turns with a summary when the history outgrows the context, keeping the stored messages', async () => {
    const t = setup([{ text: 'SUMMARY: the user pasted a long log; I explained it.' }, { text: 'Fixed.' }], {
      contextSize: 6000,
      limits: { maxReplyTokens: 1000 },
    });
    const older: ChatMessage[] = [
      { role: 'user', content: `explain this log ${'x'.repeat(8000)}` },
      { role: 'assistant', content: 'It is a timeout.' },
    ];
    t.store.history = [...older, { role: 'user', content: `fix the bug ${'y'.repeat(4000)}` }];
    await t.run();

    const compacted = t.store.events.find((e) => e.type === 'context.compacted');
    expect(compacted).toMatchObject({ contextSize: 6000, summarisedMessages: 2, keptMessages: 1 });
    if (compacted?.type !== 'context.compacted') throw new Error('no compaction');
    expect(compacted.tokensBefore).toBeGreaterThan(5000);
    expect(compacted.tokensAfter).toBeLessThanOrEqual(5000);

    const [summary, answer] = t.inference.requests;
    expect(summary?.tools).toBeUndefined();
    expect(summary?.messages.at(-1)?.content).toContain('Summarise the conversation so far');
    expect(summary?.messages.at(-1)?.content).toContain('It is a timeout.');
    expect(answer?.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(answer?.messages[0]?.content).toContain('SUMMARY: the user pasted a long log');
    expect(t.store.history.slice(0, 2)).toEqual(older);
    expect(t.store.context).toMatchObject({ summarisedMessages: 2, summary: 'SUMMARY: the user pasted a long log; I explained it.' });
    expect(t.store.events.at(-1)).toMatchObject({ type: 'turn.completed', usage: { promptTokens: 20 } });
  });

  it('does not compact a history that fits', async () => {
    const t = setup([{ text: 'Fixed.' }], { contextSize: 100_000 });
    await t.run();
    expect(t.store.types()).not.toContain('context.compacted');
    expect(t.inference.requests).toHaveLength(1);
    expect(t.store.context).toMatchObject({ measured: { messages: 1, promptTokens: 10 } });
  });

  it("aborts a running command's signal when the turn is cancelled, and ends the turn cancelled", async () => {
    let signal: AbortSignal | undefined;
    const sandbox: SandboxPort = {
      exec: (_request, options) =>
        new Promise((_resolve, reject) => {
          signal = options?.signal;
          signal?.addEventListener('abort', () => reject(new AppError(ErrorCode.SandboxCancelled, 'killed')));
        }),
    };
    const t = setup([{ toolCalls: [call('run_command', { command: 'npm test' })] }], { sandbox });
    const running = t.run();
    await expect.poll(() => signal).toBeDefined();
    t.cancellation.controller.abort();
    await running;
    expect(signal?.aborted).toBe(true);
    expect(t.store.events.at(-1)).toMatchObject({ type: 'turn.cancelled' });
  });

  it("logs a long run's output as tool.output events, in order, before its tool.completed", async () => {
    const sandbox: SandboxPort = {
      exec: async (_request, options) => {
        options?.onOutput?.('stdout', 'installing\n');
        options?.onOutput?.('stderr', 'warn: old\n');
        return { exitCode: 0, stdout: 'installing\n', stderr: 'warn: old\n', stdoutTruncated: false, stderrTruncated: false, timedOut: false, oomKilled: false, durationMs: 5 };
      },
    };
    const t = setup([{ toolCalls: [call('run_command', { command: 'npm ci' }, 'call_9')] }, { text: 'installed' }], { sandbox });
    await t.run();
    const relayed = t.store.events.filter((e) => e.type === 'tool.output' || e.type === 'tool.completed');
    expect(relayed).toEqual([
      { type: 'tool.output', turnId: TURN, callId: 'call_9', stream: 'stdout', text: 'installing\n' },
      { type: 'tool.output', turnId: TURN, callId: 'call_9', stream: 'stderr', text: 'warn: old\n' },
      expect.objectContaining({ type: 'tool.completed', callId: 'call_9', isError: false }),
    ]);
  });
});
