import { describe, expect, it } from 'vitest';
import type { ToolContext } from './define-tool';
import { LIVE_OUTPUT_MAX_CHARS, liveOutput } from './live-output';

function context(written: string[], fail = false): ToolContext {
  return {
    workspaceId: 'ws_abcdefgh',
    callId: 'call_1',
    files: { call: () => Promise.reject(new Error('unused')) },
    sandbox: { exec: () => Promise.reject(new Error('unused')) },
    emitOutput: async (callId, stream, text) => {
      if (fail) throw new Error('redis is down');
      written.push(`${callId}:${stream}:${text}`);
    },
  };
}

describe('liveOutput', () => {
  it('writes chunks in the order they came', async () => {
    const written: string[] = [];
    const live = liveOutput(context(written));
    live.onOutput?.('stdout', 'a');
    live.onOutput?.('stderr', 'b');
    live.onOutput?.('stdout', 'c');
    await live.settled();
    expect(written).toEqual(['call_1:stdout:a', 'call_1:stderr:b', 'call_1:stdout:c']);
  });

  it("stops at the per-call cap, cutting the chunk that crosses it", async () => {
    const written: string[] = [];
    const live = liveOutput(context(written));
    live.onOutput?.('stdout', 'x'.repeat(LIVE_OUTPUT_MAX_CHARS - 2));
    live.onOutput?.('stdout', 'yyyy');
    live.onOutput?.('stdout', 'z');
    await live.settled();
    expect(written.map((w) => w.length - 'call_1:stdout:'.length)).toEqual([LIVE_OUTPUT_MAX_CHARS - 2, 2]);
  });

  it('reports a failed write once every chunk has settled', async () => {
    const live = liveOutput(context([], true));
    live.onOutput?.('stdout', 'a');
    await expect(live.settled()).rejects.toThrow('redis is down');
  });

  it('relays nothing for a call without a log to write to', async () => {
    const live = liveOutput({ ...context([]), emitOutput: undefined });
    expect(live.onOutput).toBeUndefined();
    await expect(live.settled()).resolves.toBeUndefined();
  });
});
