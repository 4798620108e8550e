import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AppError, ErrorCode } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { inAnthropicWords } from './anthropic-error.filter';
import { countTokensRequestSchema, fromMessagesRequest, messagesRequestSchema, parseMessagesBody } from './messages-request';

/** Claude Code 2.1.332's real first request (`POST /anthropic/v1/messages?beta=true`). */
const claudeCode = JSON.parse(readFileSync(resolve(__dirname, '../../../../../test/fixtures/agent-clients/claude-code-2.1.332-first-request.json'), 'utf8')) as {
  body: Record<string, unknown> & { messages: unknown[]; system: { type: string; text: string }[]; tools: { name: string }[] };
};

const translate = (body: unknown) => fromMessagesRequest(parseMessagesBody(messagesRequestSchema, body));
const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error.message;
    throw error;
  }
  throw new Error('expected a refusal');
};
const user = (content: unknown) => ({ role: 'user', content });
const base = { model: 'm', max_tokens: 16 };

describe("Claude Code's first request", () => {
  const request = translate(claudeCode.body);

  it('translates without error, thinking, context_management, output_config and metadata included', () => {
    expect(request.model).toBe('tiny');
    expect(request.maxTokens).toBe(32_000);
    expect(request.messages.map((m) => m.role)).toEqual(['system', 'user', 'system']);
  });

  it('folds the system entry in where it stands, after the user turn', () => {
    expect(request.messages[2]?.content).toMatch(/^# Environment\n/);
    expect(request.messages[2]?.content).toContain("Today's date is");
    expect(request.messages[1]?.content).toMatch(/say hi$/);
  });

  it('drops the per-request billing header and keeps the rest of the system prompt', () => {
    expect(request.messages[0]?.content).toMatch(/^You are a Claude agent/);
    expect(JSON.stringify(request.messages)).not.toContain('x-anthropic-billing-header');
    const again = structuredClone(claudeCode.body);
    again.system[0] = { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.332.9ef; cc_entrypoint=sdk-cli;' };
    expect(translate(again).messages).toEqual(request.messages);
  });

  it('offers every tool but the deferred placeholder', () => {
    const names = request.tools?.map((t) => t.name);
    expect(names).toHaveLength(claudeCode.body.tools.length - 1);
    expect(names).toContain('ToolSearch');
    expect(names).not.toContain('DeferredToolPlaceholder');
  });

  it('counts tokens of the same prompt', () => {
    const counted = fromMessagesRequest(parseMessagesBody(countTokensRequestSchema, { ...claudeCode.body, stream: undefined }));
    expect(counted.messages).toEqual(request.messages);
  });
});

describe('tool search: deferred tools and tool_reference', () => {
  const tools = [
    { name: 'ToolSearch', input_schema: { type: 'object', properties: { query: { type: 'string' } } } },
    { name: 'WebFetch', description: 'Fetches a URL', input_schema: { type: 'object' }, defer_loading: true },
    { name: 'CronList', input_schema: { type: 'object' }, defer_loading: true },
    { name: 'Read', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral', ttl: '1h' }, strict: true, input_examples: [{}] },
  ];
  const search = (names: string[], id = 'toolu_1') => [
    { role: 'assistant', content: [{ type: 'tool_use', id, name: 'ToolSearch', input: { query: `select:${names.join(',')}` } }] },
    user([{ type: 'tool_result', tool_use_id: id, content: names.map((tool_name) => ({ type: 'tool_reference', tool_name })) }]),
  ];

  it('keeps deferred tools out until a tool_reference loads them, then appends them in load order', () => {
    expect(translate({ ...base, tools, messages: [user('fetch it')] }).tools?.map((t) => t.name)).toEqual(['ToolSearch', 'Read']);
    const loaded = translate({ ...base, tools, messages: [user('fetch it'), ...search(['WebFetch']), ...search(['CronList', 'WebFetch'], 'toolu_2')] });
    expect(loaded.tools?.map((t) => t.name)).toEqual(['ToolSearch', 'Read', 'WebFetch', 'CronList']);
    expect(loaded.tools?.[2]).toEqual({ name: 'WebFetch', description: 'Fetches a URL', parameters: { type: 'object' } });
  });

  it('reads a tool_reference as a short line naming the tool, beside the text', () => {
    const body = { ...base, tools, messages: [user('go'), ...search(['WebFetch'])] };
    body.messages[2] = user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'Found 2:' }, { type: 'tool_reference', tool_name: 'WebFetch' }, { type: 'tool_reference', tool_name: 'CronList' }] }]);
    expect(translate(body).messages.at(-1)).toEqual({ role: 'tool', toolCallId: 'toolu_1', name: 'ToolSearch', content: 'Found 2:\nTool loaded: WebFetch\nTool loaded: CronList' });
  });

  it('refuses a tool_reference to no declared tool, in Anthropic words naming the block', () => {
    const message = refusal(() => translate({ ...base, tools, messages: [user('go'), ...search(['Nope'])] }));
    expect(message).toBe("messages.2.content.0.content.0.tool_name: Tool reference 'Nope' not found in available tools");
  });
});

describe('system entries in messages', () => {
  it('keeps each where it stands, string or text blocks', () => {
    const request = translate({
      ...base,
      system: 'top',
      messages: [user('a'), { role: 'system', content: 'between' }, { role: 'assistant', content: 'b' }, { role: 'system', content: [{ type: 'text', text: 'x' }, { type: 'text', text: 'y', cache_control: { type: 'ephemeral' } }] }, user('c')],
    });
    expect(request.messages).toEqual([
      { role: 'system', content: 'top' },
      { role: 'user', content: 'a' },
      { role: 'system', content: 'between' },
      { role: 'assistant', content: 'b' },
      { role: 'system', content: 'x\n\ny' },
      { role: 'user', content: 'c' },
    ]);
  });

  it('refuses tool changes inside one in the words Claude Code falls back on', () => {
    const change = { role: 'system', content: [{ type: 'tool_addition', tool: { type: 'tool_definition', definition: { name: 'X' } } }] };
    expect(refusal(() => translate({ ...base, messages: [user('a'), change] }))).toMatch(/^messages\.1\.content\.0\.type: tool definitions .*tool_addition.* are not available on this platform/);
  });
});

describe('fields: accepted, mapped, refused', () => {
  const ask = { ...base, messages: [user('hi')] };

  it('accepts thinking in its three forms, effort, context_management, metadata and service_tier', () => {
    for (const thinking of [{ type: 'enabled', budget_tokens: 2048 }, { type: 'adaptive', display: 'omitted' }, { type: 'disabled' }]) {
      expect(translate({ ...ask, max_tokens: 4096, thinking, output_config: { effort: 'low' }, context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] }, metadata: { user_id: 'u' }, service_tier: 'auto' }).messages).toHaveLength(1);
    }
  });

  it('maps output_config.format to a JSON schema, and refuses it beside tools as Anthropic refuses an unknown field', () => {
    const format = { type: 'json_schema', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } };
    expect(translate({ ...ask, output_config: { format } }).jsonSchema).toEqual(format.schema);
    const tools = [{ name: 't', input_schema: { type: 'object' } }];
    expect(refusal(() => translate({ ...ask, tools, output_config: { format } }))).toMatch(/^output_config\.format: Extra inputs are not permitted/);
    expect(translate({ ...ask, tools, tool_choice: { type: 'none' }, output_config: { format } }).jsonSchema).toEqual(format.schema);
  });

  it('refuses what needs Anthropic servers and fields it does not know, in Anthropic words', () => {
    expect(refusal(() => translate({ ...ask, mcp_servers: [{ type: 'url', url: 'https://x', name: 'x' }] }))).toMatch(/^mcp_servers: Extra inputs are not permitted/);
    expect(refusal(() => translate({ ...ask, container: 'c' }))).toMatch(/^container: Extra inputs are not permitted/);
    expect(refusal(() => translate({ ...ask, speculative: true }))).toBe('speculative: Extra inputs are not permitted');
    expect(refusal(() => translate({ ...ask, output_config: { timing: {} } }))).toBe('output_config.timing: Extra inputs are not permitted');
    expect(refusal(() => translate({ ...ask, thinking: { type: 'sometimes' } }))).toBe("thinking: Input tag 'sometimes' found using 'type' does not match any of the expected tags: 'enabled', 'adaptive', 'disabled'");
    expect(refusal(() => translate({ model: 'm', messages: [user('hi')] }))).toBe('max_tokens: Field required');
    expect(refusal(() => translate({ ...ask, messages: [{ role: 'tool', content: 'x' }] }))).toBe("messages.0.role: Input should be 'user', 'assistant' or 'system'");
    expect(refusal(() => translate({ ...ask, temperature: 3 }))).toMatch(/^temperature: /);
  });

  it('refuses images and server tools naming the block or tool', () => {
    expect(refusal(() => translate({ ...ask, messages: [user([{ type: 'image', source: {} }])] }))).toMatch(/^messages\.0\.content\.0\.type: Input tag 'image' found using 'type'/);
    expect(refusal(() => translate({ ...ask, tools: [{ type: 'web_search_20250305', name: 'web_search' }] }))).toMatch(/^tools\.0\.type: Input tag 'web_search_20250305'/);
    expect(refusal(() => translate({ ...ask, messages: [user([{ type: 'tool_result', tool_use_id: 'nope', content: 'x' }])] }))).toMatch(/^messages\.0\.content\.0: unexpected `tool_use_id`/);
  });
});

describe('a prompt over the context', () => {
  it("reads as Anthropic's `prompt is too long: N tokens > M maximum`, the numbers Claude Code compacts by", () => {
    const local = new AppError(ErrorCode.ContextLengthExceeded, 'The prompt needs about 34432 tokens but the model holds 32768', { promptTokens: 34_432, contextSize: 32_768 });
    expect(inAnthropicWords(local)).toMatchObject({ code: ErrorCode.ContextLengthExceeded, message: 'prompt is too long: 34432 tokens > 32768 maximum' });
    const remote = new AppError(ErrorCode.ContextLengthExceeded, 'The prompt does not fit model "claude"', { contextSize: 200_000 });
    expect(inAnthropicWords(remote)).toMatchObject({ message: 'prompt is too long: The prompt does not fit model "claude"' });
  });
});

describe('thinking', () => {
  it('accepts a budget at or past max_tokens (Weft reads no thinking; Qwen Code sends one), and count_tokens takes any', () => {
    const body = (budget: number) => ({ ...base, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: budget }, messages: [user('hi')] });
    expect(translate(body(4096)).maxTokens).toBe(2048);
    expect(translate(body(2047)).maxTokens).toBe(2048);
    const counted = { model: 'm', thinking: { type: 'enabled', budget_tokens: 4096 }, messages: [user('hi')] };
    expect(fromMessagesRequest(parseMessagesBody(countTokensRequestSchema, counted)).messages).toHaveLength(1);
  });
});
