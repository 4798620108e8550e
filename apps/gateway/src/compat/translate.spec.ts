import { AppError } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { fromMessagesRequest, messagesRequestSchema } from './anthropic/messages-request';
import { conversationKey } from './conversation-key';
import { chatCompletionRequestSchema, fromChatCompletionRequest } from './openai/chat-request';

const chat = (body: unknown) => fromChatCompletionRequest(chatCompletionRequestSchema.parse(body));
const messages = (body: unknown) => fromMessagesRequest(messagesRequestSchema.parse(body));
const paramOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof AppError ? error.details?.param : String(error);
  }
  return 'no error';
};

describe('OpenAI chat request → generate request', () => {
  it('maps roles, text parts, tool calls and their results, names and all', () => {
    const request = chat({
      model: 'm',
      messages: [
        { role: 'developer', content: 'Be terse.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather ' }, { type: 'text', text: 'in Paris?' }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
      ],
      max_completion_tokens: 50,
      stop: 'END',
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
    });
    expect(request.messages).toEqual([
      { role: 'system', content: 'Be terse.' },
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'get_weather', arguments: { city: 'Paris' } }] },
      { role: 'tool', toolCallId: 'c1', name: 'get_weather', content: 'sunny' },
    ]);
    expect(request).toMatchObject({ maxTokens: 50, stop: ['END'], toolChoice: { name: 'get_weather' }, tools: [{ name: 'get_weather', description: '' }] });
  });

  it('turns response_format into a JSON schema and refuses it beside tools', () => {
    expect(chat({ model: 'm', messages: [{ role: 'user', content: 'x' }], response_format: { type: 'json_object' } }).jsonSchema).toEqual({ type: 'object' });
    const tools = [{ type: 'function', function: { name: 't' } }];
    expect(paramOf(() => chat({ model: 'm', messages: [{ role: 'user', content: 'x' }], tools, response_format: { type: 'json_object' } }))).toBe('response_format');
  });

  it('names the field at fault: a tool result answering nothing, arguments that are not JSON, a too-long stop list', () => {
    expect(paramOf(() => chat({ model: 'm', messages: [{ role: 'tool', tool_call_id: 'x', content: 'y' }] }))).toBe('messages[0].tool_call_id');
    const badArgs = { role: 'assistant', content: '', tool_calls: [{ id: 'a', function: { name: 't', arguments: '{' } }] };
    expect(paramOf(() => chat({ model: 'm', messages: [badArgs] }))).toBe('messages[0].tool_calls[0].function.arguments');
    expect(paramOf(() => chat({ model: 'm', messages: [{ role: 'user', content: 'x' }], stop: Array(17).fill('s') }))).toBe('stop');
    expect(chat({ model: 'm', messages: [{ role: 'user', content: 'x' }], max_tokens: 1_000_000 }).maxTokens).toBe(32_768);
  });
});

describe('Anthropic messages request → generate request', () => {
  it('splits a user turn into tool results and text, drops thinking, marks errors', () => {
    const request = messages({
      model: 'm',
      max_tokens: 10,
      system: [{ type: 'text', text: 'Be terse.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: '…' }, { type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 't1', name: 'w', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'down' }], is_error: true }, { type: 'text', text: 'And now?' }] },
      ],
      tool_choice: { type: 'any' },
      tools: [{ name: 'w', input_schema: { type: 'object' } }],
    });
    expect(request.messages).toEqual([
      { role: 'system', content: 'Be terse.' },
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: 'Looking.', toolCalls: [{ id: 't1', name: 'w', arguments: { city: 'Paris' } }] },
      { role: 'tool', toolCallId: 't1', name: 'w', content: 'Error: down' },
      { role: 'user', content: 'And now?' },
    ]);
    expect(request.toolChoice).toBe('required');
  });

  it('refuses images and server tools, naming the block', () => {
    const image = { role: 'user', content: [{ type: 'image', source: {} }] };
    expect(paramOf(() => messages({ model: 'm', max_tokens: 5, messages: [image] }))).toBe('messages[0].content[0].type');
    const search = { type: 'web_search_20250305', name: 'web_search' };
    expect(paramOf(() => messages({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }], tools: [search] }))).toBe('tools[0].type');
  });
});

describe('conversation key', () => {
  it('stays the same while a conversation grows and differs per user, model and opening', () => {
    const opening = [
      { role: 'system' as const, content: 's' },
      { role: 'user' as const, content: 'first' },
    ];
    const key = conversationKey('u1', 'm', opening);
    expect(conversationKey('u1', 'm', [...opening, { role: 'assistant', content: 'a' }, { role: 'user', content: 'second' }])).toBe(key);
    expect(conversationKey('u2', 'm', opening)).not.toBe(key);
    expect(conversationKey('u1', 'other', opening)).not.toBe(key);
    expect(conversationKey('u1', 'm', [{ role: 'user', content: 'another' }])).not.toBe(key);
  });
});
