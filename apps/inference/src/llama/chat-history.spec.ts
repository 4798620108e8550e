import type { ChatMessage } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { toChatFunctions, toChatHistory } from './chat-history';

describe('toChatHistory', () => {
  it('maps system, user and plain assistant messages one to one', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello.' },
      { role: 'user', content: 'Bye' },
    ];
    expect(toChatHistory(messages)).toEqual([
      { type: 'system', text: 'You are terse.' },
      { type: 'user', text: 'Hi' },
      { type: 'model', response: ['Hello.'] },
      { type: 'user', text: 'Bye' },
    ]);
  });

  it('folds tool calls, their results and the continuation into one model response', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'What is here?' },
      {
        role: 'assistant',
        content: 'Let me look.',
        toolCalls: [
          { id: 'a', name: 'list_directory', arguments: { path: '.' } },
          { id: 'b', name: 'read_file', arguments: { path: 'README.md' } },
        ],
      },
      { role: 'tool', toolCallId: 'b', name: 'read_file', content: '# Readme' },
      { role: 'tool', toolCallId: 'a', name: 'list_directory', content: 'README.md' },
      { role: 'assistant', content: 'One file.' },
    ];
    expect(toChatHistory(messages)).toEqual([
      { type: 'user', text: 'What is here?' },
      {
        type: 'model',
        response: [
          'Let me look.',
          { type: 'functionCall', name: 'list_directory', params: { path: '.' }, result: 'README.md', startsNewChunk: true },
          { type: 'functionCall', name: 'read_file', params: { path: 'README.md' }, result: '# Readme', startsNewChunk: false },
          'One file.',
        ],
      },
    ]);
  });

  it('leaves a conversation ending in tool results open for the model to continue', () => {
    const history = toChatHistory([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'list_directory', arguments: {} }] },
      { role: 'tool', toolCallId: 'a', name: 'list_directory', content: 'x' },
    ]);
    expect(history.at(-1)).toEqual({
      type: 'model',
      response: [{ type: 'functionCall', name: 'list_directory', params: {}, result: 'x', startsNewChunk: true }],
    });
  });

  it('keeps a tool result whose call was trimmed away as user context', () => {
    const history = toChatHistory([{ role: 'tool', toolCallId: 'gone', name: 'read_file', content: 'data' }]);
    expect(history).toEqual([{ type: 'user', text: 'Result of tool read_file:\ndata' }]);
  });
});

describe('toChatFunctions', () => {
  it('keys tool definitions by name with their JSON Schema, strings capped, as params', () => {
    const parameters = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
    const limits = { maxStringChars: 100, maxArrayItems: 10 };
    expect(toChatFunctions([{ name: 'list_directory', description: 'List a folder', parameters }], limits)).toEqual({
      list_directory: {
        description: 'List a folder',
        params: { type: 'object', properties: { path: { type: 'string', maxLength: 100 } } },
      },
    });
    expect(toChatFunctions([], limits)).toBeUndefined();
  });
});
