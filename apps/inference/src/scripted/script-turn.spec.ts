import { AppError, ErrorCode, type ChatMessage } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { chunkText, continuedChunks, planTurn, scriptStep } from './script-turn';
import type { Script } from './script.schema';

const script: Script = {
  turns: [
    { text: 'Looking around.', toolCalls: [{ name: 'list_directory', arguments: { path: '.' } }] },
    { text: 'There are two files here.' },
  ],
};

const user = (content: string): ChatMessage => ({ role: 'user', content });

describe('scripted turns', () => {
  it('replays the turn numbered by the assistant messages already in the conversation', () => {
    expect(scriptStep([user('hi')])).toBe(0);
    const afterTool: ChatMessage[] = [
      { role: 'system', content: 'be brief' },
      user('what is here?'),
      { role: 'assistant', content: 'Looking around.', toolCalls: [{ id: 'call_0_0', name: 'list_directory', arguments: {} }] },
      { role: 'tool', toolCallId: 'call_0_0', name: 'list_directory', content: 'a.ts\nb.ts' },
    ];
    expect(scriptStep(afterTool)).toBe(1);
    expect(planTurn('scripted/demo', script, afterTool).chunks.join('')).toBe('There are two files here.');
  });

  it('counts a reply split into several assistant messages as one step', () => {
    const split: ChatMessage[] = [
      user('write it'),
      { role: 'assistant', content: 'Writing the file.' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_0_0', name: 'write_file', arguments: {} }] },
      { role: 'tool', toolCallId: 'call_0_0', name: 'write_file', content: 'ok' },
    ];
    expect(scriptStep(split)).toBe(1);
    expect(scriptStep([...split, { role: 'assistant', content: 'Done.' }, { role: 'system', content: 'reminder' }, user('again')])).toBe(2);
    const reminderInside: ChatMessage[] = [user('go'), { role: 'assistant', content: 'a' }, { role: 'system', content: 'note' }, { role: 'assistant', content: 'b' }];
    expect(scriptStep(reminderInside)).toBe(1);
  });

  it('returns tool calls with ids derived from the step', () => {
    const plan = planTurn('scripted/demo', script, [user('go')]);
    expect(plan.finishReason).toBe('tool_calls');
    expect(plan.toolCalls).toEqual([{ id: 'call_0_0', name: 'list_directory', arguments: { path: '.' } }]);
  });

  it('fails with SCRIPT_EXHAUSTED past the last turn', () => {
    const messages: ChatMessage[] = [user('a'), { role: 'assistant', content: 'x' }, user('b'), { role: 'assistant', content: 'y' }, user('c')];
    const attempt = () => planTurn('scripted/demo', script, messages);
    expect(attempt).toThrow(AppError);
    expect(attempt).toThrow(expect.objectContaining({ code: ErrorCode.ScriptExhausted, details: expect.objectContaining({ step: 2 }) }));
  });

  it('cuts the text at maxTokens chunks and reports length without tool calls', () => {
    const plan = planTurn('scripted/demo', script, [user('go')], 1);
    expect(plan).toEqual({ chunks: ['Looking '], toolCalls: [], finishReason: 'length', delayMs: 0 });
  });

  it("replays the branch whose `when` matches the conversation's first user message", () => {
    const branched: Script = {
      turns: [{ text: 'main' }],
      branches: [{ when: '^\\[Weft runtime\\] Subtask 2 of', turns: [{ text: 'second subtask' }] }],
    };
    expect(planTurn('scripted/p', branched, [user('[Weft runtime] Subtask 2 of 3: tests')]).chunks.join('')).toBe('second subtask');
    expect(planTurn('scripted/p', branched, [user('[Weft runtime] Subtask 1 of 3: code')]).chunks.join('')).toBe('main');
  });

  it('splits text into word-sized chunks that join back to the original', () => {
    const text = '  Hello,  world!\nNext line ';
    expect(chunkText(text).length).toBeGreaterThan(2);
    expect(chunkText(text).join('')).toBe(text);
    expect(chunkText('')).toEqual([]);
  });

  it("carries a turn's pause between deltas, none by default", () => {
    const slow: Script = { turns: [{ text: 'one two three', delayMs: 200 }] };
    expect(planTurn('scripted/slow', slow, [user('go')]).delayMs).toBe(200);
    expect(planTurn('scripted/demo', script, [user('go')]).delayMs).toBe(0);
  });
});

describe('continuedChunks', () => {
  it('gives the deltas after the text a lost worker streamed, splitting the one it stopped inside', () => {
    expect(continuedChunks(['The ', 'quick ', 'fox.'], 'The qu')).toEqual(['ick ', 'fox.']);
    expect(continuedChunks(['The ', 'quick ', 'fox.'], 'The quick ')).toEqual(['fox.']);
    expect(continuedChunks(['The ', 'quick '], undefined)).toEqual(['The ', 'quick ']);
  });

  it('ends the text at the earliest stop string, without it or the turn\'s tool calls, and names the string', () => {
    const plan = planTurn('scripted/demo', script, [user('hi')], undefined, ['nope', 'around', 'king']);
    expect(plan).toMatchObject({ toolCalls: [], finishReason: 'stop', stopSequence: 'king' });
    expect(plan.chunks.join('')).toBe('Loo');
    expect(planTurn('scripted/demo', script, [user('hi')], undefined, ['absent'])).not.toHaveProperty('stopSequence');
  });
});
