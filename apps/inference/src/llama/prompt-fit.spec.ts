import { ErrorCode, type ChatMessage } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { MAX_CHARS_PER_TOKEN, PROMPT_MARGIN_TOKENS, commonPrefixLength, fitPrompt } from './prompt-fit';

/** One token per character, so sizes are easy to reason about. */
const measure = (messages: ChatMessage[]) => {
  const text = messages.map((m) => m.content).join('');
  return { rendered: text, tokens: text.length };
};

const conversation: ChatMessage[] = [
  { role: 'system', content: 's'.repeat(10) },
  { role: 'user', content: 'u'.repeat(40) },
  { role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 't', arguments: {} }] },
  { role: 'tool', toolCallId: 'c', name: 't', content: 'r'.repeat(40) },
  { role: 'user', content: 'q'.repeat(10) },
];

describe('fitPrompt', () => {
  it('returns the room left for the reply', () => {
    const fitted = fitPrompt(conversation, 200, 'error', measure);
    expect(fitted).toMatchObject({ promptTokens: 100, room: 200 - 100 - PROMPT_MARGIN_TOKENS, droppedMessages: 0 });
  });

  it('fails with CONTEXT_LENGTH_EXCEEDED and the numbers when the prompt does not fit', () => {
    expect(() => fitPrompt(conversation, 100, 'error', measure)).toThrow(
      expect.objectContaining({ code: ErrorCode.ContextLengthExceeded, details: { promptTokens: 116, contextSize: 100, droppedMessages: 0 } }),
    );
  });

  it('drops the oldest turns, with the tool results that answer them, when asked to', () => {
    const fitted = fitPrompt(conversation, 60, 'drop-oldest', measure);
    expect(fitted.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(fitted.droppedMessages).toBe(3);
  });

  it('never drops the system prompt or the last message', () => {
    expect(() => fitPrompt(conversation, 30, 'drop-oldest', measure)).toThrow(expect.objectContaining({ code: ErrorCode.ContextLengthExceeded }));
  });

  it('refuses a prompt of more characters than the context could hold without rendering or tokenizing it', () => {
    let measured = 0;
    const counting = (messages: ChatMessage[]) => (measured++, measure(messages));
    const huge: ChatMessage[] = [{ role: 'user', content: 'x'.repeat(100 * MAX_CHARS_PER_TOKEN + 1) }];
    expect(() => fitPrompt(huge, 100, 'error', counting)).toThrow(
      expect.objectContaining({ code: ErrorCode.ContextLengthExceeded, details: { promptChars: 3201, contextSize: 100, droppedMessages: 0 } }),
    );
    expect(() => fitPrompt(huge, 100, 'drop-oldest', counting)).toThrow(expect.objectContaining({ code: ErrorCode.ContextLengthExceeded }));
    expect(measured).toBe(0);
  });

  it('cuts a long history to fit in a few measurements, not one per dropped message', () => {
    let measured = 0;
    const counting = (messages: ChatMessage[]) => (measured++, measure(messages));
    const history: ChatMessage[] = Array.from({ length: 10_000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: 'm'.repeat(10) }));
    const fitted = fitPrompt(history, 1000, 'drop-oldest', counting);
    expect(fitted.room).toBeGreaterThan(0);
    // 98 messages of 10 characters leave the most room short of the margin: none more was dropped.
    expect(fitted.messages).toHaveLength(98);
    expect(fitted.droppedMessages).toBe(10_000 - 98);
    expect(measured).toBeLessThanOrEqual(3);
  });
});

describe('commonPrefixLength', () => {
  it('counts the shared leading tokens', () => {
    expect(commonPrefixLength([1, 2, 3, 4], [1, 2, 5])).toBe(2);
    expect(commonPrefixLength([], [1])).toBe(0);
    expect(commonPrefixLength([1, 2], [1, 2, 3])).toBe(2);
  });
});
