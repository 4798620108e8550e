import { ErrorCode, type ChatMessage } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { PROMPT_MARGIN_TOKENS, commonPrefixLength, fitPrompt } from './prompt-fit';

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
});

describe('commonPrefixLength', () => {
  it('counts the shared leading tokens', () => {
    expect(commonPrefixLength([1, 2, 3, 4], [1, 2, 5])).toBe(2);
    expect(commonPrefixLength([], [1])).toBe(0);
    expect(commonPrefixLength([1, 2], [1, 2, 3])).toBe(2);
  });
});
