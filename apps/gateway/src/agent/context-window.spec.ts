import type { ChatMessage } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { chooseCut, currentTurnStart, estimateTokens, modelView, promptEstimate, transcriptLines } from './context-window';

const words = (n: number) => 'x'.repeat(n * 4 - 16); // n tokens once the per-message overhead is added
const history: ChatMessage[] = [
  { role: 'user', content: words(100) },
  { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.ts' } }] },
  { role: 'tool', toolCallId: 'c1', name: 'read_file', content: words(100) },
  { role: 'assistant', content: words(10) },
  { role: 'user', content: words(50) },
  { role: 'assistant', content: '', toolCalls: [{ id: 'c2', name: 'run_command', arguments: { command: 'ls' } }] },
  { role: 'tool', toolCallId: 'c2', name: 'run_command', content: words(50) },
];

describe('context window', () => {
  it('estimates about four characters a token', () => {
    expect(estimateTokens([{ role: 'user', content: words(100) }])).toBe(100);
  });

  it('cuts at the start of the oldest turn that still fits', () => {
    expect(chooseCut(history, 0, 200)).toBe(4);
  });

  it('cuts inside the current turn, never at a tool result, when no whole turn fits', () => {
    const cut = chooseCut(history, 0, 80);
    expect(cut).toBe(5);
    expect(history[cut ?? 0]?.role).toBe('assistant');
  });

  it('finds no cut when even the last step does not fit', () => {
    expect(chooseCut(history, 0, 10)).toBeUndefined();
  });

  it("falls back to the current turn's start, so older turns can still be summarised (a system prompt that fills the context)", () => {
    const start = history.findLastIndex((m) => m.role === 'user');
    expect(currentTurnStart(history, 0)).toBe(start);
    expect(currentTurnStart(history, start)).toBeUndefined();
    expect(currentTurnStart([{ role: 'user', content: 'only' }], 0)).toBeUndefined();
  });

  it('sends the summary in the system prompt and only the messages after it', () => {
    const view = modelView('You are Weft.', history, { summarisedMessages: 4, summary: 'Earlier: read a.ts.' });
    expect(view.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(view[0]?.content).toContain('Earlier: read a.ts.');
  });

  it("starts from the worker's count of the last prompt and estimates only what came after", () => {
    const state = { summarisedMessages: 0, summary: null, measured: { messages: 4, promptTokens: 900 } };
    expect(promptEstimate(modelView('s', history, state), history, state)).toBe(900 + estimateTokens(history.slice(4)));
  });

  it('clips long messages in the transcript for the summariser', () => {
    const [line] = transcriptLines([{ role: 'tool', toolCallId: 'c', name: 'read_file', content: 'y'.repeat(500) }], 100);
    expect(line?.startsWith('Result of read_file: yyy')).toBe(true);
    expect(line).toContain('more characters]');
  });
});
