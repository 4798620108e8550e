import type { SessionEvent, StoredSessionEvent } from '@weft/contracts';
import { createColors } from 'picocolors';
import { describe, expect, it } from 'vitest';
import { TurnRenderer, compactArgs } from './render';

function renderAll(events: SessionEvent[], colors = false): string {
  let out = '';
  const renderer = new TurnRenderer({ write: (text: string) => (out += text) }, createColors(colors));
  for (const event of events) renderer.render({ ...event, id: '1-0', at: '' } as StoredSessionEvent);
  return out;
}

const turnId = 'turn_1';

describe('TurnRenderer', () => {
  it('prints nothing for the user message and the turn start', () => {
    expect(renderAll([
      { type: 'message.created', turnId, role: 'user', content: 'hi' },
      { type: 'turn.started', turnId, model: 'tiny' },
    ])).toBe('');
  });

  it('streams text deltas as they come and ends the line when the message completes', () => {
    expect(renderAll([
      { type: 'message.delta', turnId, text: 'Hel' },
      { type: 'message.delta', turnId, text: 'lo' },
      { type: 'message.completed', turnId, content: 'Hello' },
    ])).toBe('Hello\n');
  });

  it('says on a line of its own that the generation moved to another worker, and the reply goes on', () => {
    expect(renderAll([
      { type: 'message.delta', turnId, text: 'The quick ' },
      { type: 'generation.resumed', turnId, model: 'tiny', streamedChars: 10, pausedMs: 4000 },
      { type: 'message.delta', turnId, text: 'brown fox' },
      { type: 'message.completed', turnId, content: 'The quick brown fox' },
    ])).toBe('The quick \n↻ the inference worker was lost; tiny goes on from where it stopped\nbrown fox\n');
  });

  it("shows a long run's output live under its call, joining chunks split mid-line, then only the exit line", () => {
    const call = { id: 'c9', name: 'run_command', arguments: { command: 'npm test' } };
    expect(renderAll([
      { type: 'tool.called', turnId, call },
      { type: 'tool.output', turnId, callId: 'c9', stream: 'stdout', text: 'test 1 ok\ntest ' },
      { type: 'tool.output', turnId, callId: 'c9', stream: 'stdout', text: '2 ok\n' },
      { type: 'tool.completed', turnId, callId: 'c9', name: 'run_command', isError: false, output: 'exit code: 0\nstdout:\ntest 1 ok\ntest 2 ok' },
    ])).toBe('● run_command(command="npm test")\n    │ test 1 ok\n    │ test 2 ok\n  ⎿ exit code: 0\n');
  });

  it('prints a completed message whose text was not streamed', () => {
    expect(renderAll([{ type: 'message.completed', turnId, content: 'Whole answer' }])).toBe('Whole answer\n');
  });

  it('shows a tool call with its name and compact arguments on a line of its own', () => {
    expect(renderAll([
      { type: 'message.delta', turnId, text: 'Reading' },
      { type: 'tool.called', turnId, call: { id: 'c1', name: 'read_file', arguments: { path: 'src/a.ts', limit: 20 } } },
    ])).toBe('Reading\n● read_file(path="src/a.ts", limit=20)\n');
  });

  it('shows the first lines of a tool result and counts the rest', () => {
    const output = ['one', 'two', 'three', 'four', 'five', 'six'].join('\n');
    expect(renderAll([{ type: 'tool.completed', turnId, callId: 'c1', name: 'read_file', isError: false, output }])).toBe(
      '  ⎿ one\n    two\n    three\n    four\n    … 2 more lines\n',
    );
  });

  it("shows a failed result's first line and its last lines, where the cause is", () => {
    const output = ['exit 1', 'Collecting x', 'Downloading', 'Building', 'error: no matching distribution', 'ERROR: failed'].join('\n');
    expect(renderAll([{ type: 'tool.completed', turnId, callId: 'c1', name: 'run_command', isError: true, output }])).toBe(
      '  ⎿ exit 1\n    … 2 earlier lines\n    Building\n    error: no matching distribution\n    ERROR: failed\n',
    );
  });

  it('dims a tool result and paints a failed one red', () => {
    const ok = renderAll([{ type: 'tool.completed', turnId, callId: 'c1', name: 'x', isError: false, output: 'fine' }], true);
    const bad = renderAll([{ type: 'tool.completed', turnId, callId: 'c1', name: 'x', isError: true, output: 'boom' }], true);
    expect(ok).toBe(`${createColors(true).dim('  ⎿ fine')}\n`);
    expect(bad).toBe(`${createColors(true).red('  ⎿ boom')}\n`);
  });

  it('says so when a tool printed nothing', () => {
    expect(renderAll([{ type: 'tool.completed', turnId, callId: 'c1', name: 'x', isError: false, output: '' }])).toBe('  ⎿ (no output)\n');
  });

  it('closes a completed turn with its steps and token usage', () => {
    expect(renderAll([
      { type: 'message.delta', turnId, text: 'ok' },
      { type: 'turn.completed', turnId, usage: { promptTokens: 120, completionTokens: 8 }, iterations: 2 },
    ])).toBe('ok\n✓ done · 2 steps · 120 prompt + 8 completion tokens\n');
  });

  it('shows how many prompt tokens came from the cache when the gateway reports it', () => {
    expect(renderAll([
      { type: 'turn.completed', turnId, usage: { promptTokens: 120, completionTokens: 8, cachedTokens: 100, evaluatedTokens: 20 }, iterations: 1 },
    ])).toBe('✓ done · 1 step · 120 prompt (100 cached) + 8 completion tokens\n');
  });

  it('says when the context was compacted', () => {
    expect(renderAll([
      { type: 'context.compacted', turnId, contextSize: 4096, tokensBefore: 2200, tokensAfter: 900, summarisedMessages: 6, keptMessages: 3 },
    ])).toBe('↻ context compacted: 6 older messages summarised for the model (~2200 → ~900 of 4096 tokens)\n');
  });

  it('prints the code and message of a failed turn', () => {
    expect(renderAll([{ type: 'turn.failed', turnId, code: 'AGENT.ITERATION_LIMIT', message: 'too many steps' }])).toBe(
      '✗ turn failed: too many steps (AGENT.ITERATION_LIMIT)\n',
    );
  });
});

describe('compactArgs', () => {
  it('cuts long strings and flattens newlines', () => {
    const text = compactArgs({ path: 'a.ts', content: `line one\n${'x'.repeat(200)}` });
    expect(text.startsWith('path="a.ts", content="line one xxx')).toBe(true);
    expect(text).not.toContain('\n');
    expect(text.length).toBeLessThanOrEqual(120);
  });
});
