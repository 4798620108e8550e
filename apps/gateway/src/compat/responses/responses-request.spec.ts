import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AppError } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { parseBody } from '../request-fields';
import { fromResponsesRequest, responsesRequestSchema } from './responses-request';

/** Codex CLI 0.169's first request, as it reached a server (method, url, headers, body). */
const codex = JSON.parse(readFileSync(resolve(__dirname, '../../../../../test/fixtures/agent-clients/codex-0.169.0-first-request.json'), 'utf8')) as {
  body: Record<string, unknown> & { tools: Array<{ type: string; name?: string; tools?: Array<{ name: string }> }> };
};

const translate = (body: unknown, history = []) => fromResponsesRequest(responsesRequestSchema.parse(body), history);
const paramOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof AppError ? error.details?.param : String(error);
  }
  return 'no error';
};

describe("Codex 0.169's first request → generate request", () => {
  const { generate, tools } = translate(codex.body);

  it('reads developer messages as system prompts and user messages of input_text parts, in order', () => {
    expect(generate.messages.map((m) => m.role)).toEqual(['system', 'system', 'user', 'user']);
    expect(generate.messages.at(-1)).toEqual({ role: 'user', content: 'say hi' });
    expect(generate.messages[0]?.content).toMatch(/^You are a coding agent running in the Codex CLI/);
  });

  it('passes function tools, flattens the namespace to names the worker takes, and leaves web_search out', () => {
    const namespace = codex.body.tools.find((t) => t.type === 'namespace');
    const names = generate.tools?.map((t) => t.name) ?? [];
    expect(names).toContain('exec_command');
    for (const tool of namespace?.tools ?? []) expect(names).toContain(`multi_agent_v1__${tool.name}`);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(names).toHaveLength(codex.body.tools.filter((t) => t.type === 'function').length + (namespace?.tools?.length ?? 0));
    expect(tools.leftOut).toEqual(['web_search']);
    expect(tools.namespaced.get('multi_agent_v1__close_agent')).toEqual({ name: 'close_agent', namespace: 'multi_agent_v1' });
    expect(generate.toolChoice).toBe('auto');
  });

  it('ignores what it cannot use (reasoning, include, store, client_metadata) without refusing', () => {
    expect(generate).not.toHaveProperty('jsonSchema');
    expect(generate).not.toHaveProperty('maxTokens');
  });
});

describe('Responses input items → chat messages', () => {
  it('makes an assistant message and the function calls after it ONE assistant message, skipping reasoning', () => {
    const { generate } = translate({
      model: 'm',
      instructions: 'Be terse.',
      input: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Looking.' }] },
        { type: 'function_call', call_id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'c2', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'sunny' },
        { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'spawned' }] },
      ],
    });
    expect(generate.messages).toEqual([
      { role: 'system', content: 'Be terse.' },
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Looking.',
        toolCalls: [
          { id: 'c1', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'c2', name: 'multi_agent_v1__spawn_agent', arguments: {} },
        ],
      },
      { role: 'tool', toolCallId: 'c1', name: 'get_weather', content: 'sunny' },
      { role: 'tool', toolCallId: 'c2', name: 'multi_agent_v1__spawn_agent', content: 'spawned' },
    ]);
  });

  it('continues a stored conversation: a function call output may answer a call made in it', () => {
    const history = [
      { role: 'user' as const, content: 'Weather?' },
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'c1', name: 'get_weather', arguments: {} }] },
    ];
    const { generate, conversation } = fromResponsesRequest(
      responsesRequestSchema.parse({ model: 'm', instructions: 'new', input: [{ type: 'function_call_output', call_id: 'c1', output: 'rain' }] }),
      history,
    );
    expect(generate.messages[0]).toEqual({ role: 'system', content: 'new' });
    expect(conversation).toEqual([...history, { role: 'tool', toolCallId: 'c1', name: 'get_weather', content: 'rain' }]);
  });

  it('names the field at fault: images, unknown items, unanswered outputs, bad arguments', () => {
    const image = { role: 'user', content: [{ type: 'input_text', text: 'see' }, { type: 'input_image', image_url: 'data:' }] };
    expect(paramOf(() => translate({ model: 'm', input: [image] }))).toBe('input[0].content[1].type');
    expect(paramOf(() => translate({ model: 'm', input: [{ type: 'item_reference', id: 'x' }] }))).toBe('input[0].type');
    expect(paramOf(() => translate({ model: 'm', input: [{ type: 'function_call_output', call_id: 'x', output: 'y' }] }))).toBe('input[0].call_id');
    expect(paramOf(() => translate({ model: 'm', input: [{ type: 'function_call', call_id: 'x', name: 't', arguments: '{' }] }))).toBe('input[0].arguments');
    expect(paramOf(() => translate({ model: 'm', input: [{ type: 'function_call', call_id: 'x', arguments: '{}' }] }))).toBe('input[0].name');
  });
});

describe('Responses request fields', () => {
  it('maps max_output_tokens, temperature, top_p, tool_choice and text.format', () => {
    const tool = { type: 'function', name: 'f', parameters: { type: 'object' }, strict: true };
    expect(translate({ model: 'm', input: 'x', max_output_tokens: 20, temperature: 0.5, top_p: 0.9, tools: [tool], tool_choice: { type: 'function', name: 'f' } }).generate).toMatchObject({
      maxTokens: 20,
      temperature: 0.5,
      topP: 0.9,
      toolChoice: { name: 'f' },
      messages: [{ role: 'user', content: 'x' }],
    });
    const format = { type: 'json_schema', name: 'v', schema: { type: 'object', properties: { ok: { type: 'boolean' } } }, strict: true };
    expect(translate({ model: 'm', input: 'x', text: { format } }).generate.jsonSchema).toEqual(format.schema);
    expect(translate({ model: 'm', input: 'x', text: { format: { type: 'json_object' } } }).generate.jsonSchema).toEqual({ type: 'object' });
    expect(translate({ model: 'm', input: 'x', tools: [tool], tool_choice: 'none' }).generate).not.toHaveProperty('tools');
  });

  it('refuses what it cannot do, naming the field', () => {
    expect(paramOf(() => translate({ model: 'm', input: 'x', tools: [{ type: 'file_search', vector_store_ids: [] }] }))).toBe('tools[0].type');
    expect(paramOf(() => translate({ model: 'm', input: 'x', tools: [{ type: 'function', name: 'has space' }] }))).toBe('tools');
    expect(paramOf(() => translate({ model: 'm', input: 'x', background: true }))).toBe('background');
    expect(paramOf(() => translate({ model: 'm', input: 'x', tools: [{ type: 'function', name: 'f' }], text: { format: { type: 'json_object' } } }))).toBe('text.format');
    expect(paramOf(() => translate({ model: 'm', input: 'x', tools: [{ type: 'function', name: 'f' }], tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [] } }))).toBe('tool_choice');
    expect(paramOf(() => translate({ model: 'm', input: [] }))).toBe('input');
  });

  it('refuses max_output_tokens below 16 and an include value OpenAI does not know, as OpenAI does', () => {
    const parse = (fields: object) => parseBody(responsesRequestSchema, { model: 'm', input: 'x', ...fields });
    expect(paramOf(() => parse({ max_output_tokens: 15 }))).toBe('max_output_tokens');
    expect(paramOf(() => parse({ include: ['reasoning.encrypted_content', 'output_text.everything'] }))).toBe('include[1]');
    expect(parse({ max_output_tokens: 16, include: ['reasoning.encrypted_content', 'message.output_text.logprobs'] }).max_output_tokens).toBe(16);
  });
});
