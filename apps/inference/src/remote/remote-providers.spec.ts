import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ErrorCode, type ToolDefinition } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicModelSchema, openAiModelSchema } from '../registry/models-config.schema';
import { AnthropicDriver, toAnthropicMessages } from './anthropic.driver';
import { OpenAiDriver } from './openai.driver';
import { ToolCallTextFilter, parseToolCallText } from './tool-call-text';

const log = createLogger('remote-test', 'silent');
const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

const tools: ToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' }, offset: { type: 'integer' } }, required: ['path'] },
  },
  { name: 'list_directory', description: 'List a folder', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
];

/** Serves one recorded SSE stream (or an error status) per request and keeps what it was sent. */
class RecordedEndpoint {
  next: { status: number; body: string; chunkSize?: number } = { status: 200, body: '' };
  requests: { url: string; headers: IncomingHttpHeaders; body: Record<string, unknown> }[] = [];
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        this.requests.push({ url: req.url ?? '', headers: req.headers, body: JSON.parse(raw) as Record<string, unknown> });
        const { status, body, chunkSize = 37 } = this.next;
        res.writeHead(status, { 'content-type': status === 200 ? 'text/event-stream' : 'application/json' });
        // Odd-sized chunks, so events arrive split across reads as on a real connection.
        for (let i = 0; i < body.length; i += chunkSize) res.write(body.slice(i, i + chunkSize));
        res.end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

describe('remote providers against recorded streams', () => {
  const endpoint = new RecordedEndpoint();
  let base: string;

  beforeAll(async () => {
    base = await endpoint.start();
  });
  afterAll(() => endpoint.stop());
  beforeEach(() => {
    endpoint.requests = [];
  });

  function call(request: Parameters<OpenAiDriver['generate']>[1]['request']) {
    const deltas: string[] = [];
    return { deltas, call: { request, onDelta: (t: string) => deltas.push(t), signal: new AbortController().signal } };
  }

  describe('OpenAI-compatible', () => {
    const openai = (overrides: Record<string, unknown> = {}) =>
      new OpenAiDriver(
        [openAiModelSchema.parse({ id: 'coder', provider: 'openai', baseUrl: `${base}/v1`, remoteModel: 'qwen2.5-coder', apiKeyEnv: 'LOCAL_API_KEY', contextSize: 8192, ...overrides })],
        { LOCAL_API_KEY: 'sk-test' },
        log,
      );

    it('streams text, assembles chunked parallel tool calls, validates them and reports usage with cached tokens', async () => {
      endpoint.next = { status: 200, body: fixture('openai-tool-calls.sse') };
      const { deltas, call: c } = call({ model: 'coder', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'read the readme' }], tools, maxTokens: 256, temperature: 0.2 });
      const result = await openai().generate('coder', c);
      expect(deltas.join('')).toBe('Let me look.');
      expect(result).toMatchObject({ text: 'Let me look.', finishReason: 'tool_calls', usage: { promptTokens: 412, completionTokens: 38, cachedTokens: 384, evaluatedTokens: 28 } });
      expect(result.toolCalls.map(({ name, arguments: args, argumentsError }) => ({ name, args, invalid: Boolean(argumentsError) }))).toEqual([
        { name: 'read_file', args: { path: 'README.md', offset: 100 }, invalid: false },
        { name: 'list_directory', args: { path: '.' }, invalid: false },
        { name: 'read_file', args: { path: 7 }, invalid: true },
      ]);
      const [sent] = endpoint.requests;
      expect(sent?.url).toBe('/v1/chat/completions');
      expect(sent?.headers.authorization).toBe('Bearer sk-test');
      expect(sent?.body).toMatchObject({
        model: 'qwen2.5-coder',
        stream: true,
        max_tokens: 256,
        temperature: 0.2,
        tools: [{ type: 'function', function: { name: 'read_file' } }, { type: 'function', function: { name: 'list_directory' } }],
      });
    });

    it('sends earlier tool calls and results back in the OpenAI shape', async () => {
      endpoint.next = { status: 200, body: fixture('openai-tool-calls.sse') };
      const { call: c } = call({
        model: 'coder',
        tools,
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'list_directory', arguments: { path: '.' } }] },
          { role: 'tool', toolCallId: 'call_1', name: 'list_directory', content: 'a.ts' },
        ],
      });
      await openai().generate('coder', c);
      expect(endpoint.requests[0]?.body.messages).toEqual([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'list_directory', arguments: '{"path":"."}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'a.ts' },
      ]);
    });

    it('falls back to <tool_call> text for endpoints without native tools: taught in the system prompt, parsed, hidden from the stream', async () => {
      endpoint.next = { status: 200, body: fixture('openai-text-fallback.sse'), chunkSize: 11 };
      const { deltas, call: c } = call({ model: 'coder', messages: [{ role: 'system', content: 'You code.' }, { role: 'user', content: 'read a and b' }], tools });
      const result = await openai({ nativeTools: false }).generate('coder', c);
      expect(deltas.join('')).toBe('I will read the file.');
      expect(result.text).toBe('I will read the file.');
      expect(result.toolCalls.map((t) => [t.name, t.arguments])).toEqual([
        ['read_file', { path: 'src/a.ts' }],
        ['read_file', { path: 'src/b.ts' }],
      ]);
      const sent = endpoint.requests[0]?.body as { tools?: unknown; messages: { role: string; content: string }[] };
      expect(sent.tools).toBeUndefined();
      expect(sent.messages[0]?.content).toMatch(/^You code\.\n\nYou can call tools[\s\S]*<tool_call>/);
    });

    it('refuses a prompt beyond the real context length before sending anything', async () => {
      const { call: c } = call({ model: 'coder', messages: [{ role: 'user', content: 'x'.repeat(40_000) }] });
      await expect(openai().generate('coder', c)).rejects.toMatchObject({ code: ErrorCode.ContextLengthExceeded, details: { contextSize: 8192 } });
      expect(endpoint.requests).toHaveLength(0);
    });

    it('maps an HTTP error to PROVIDER_FAILED and an overflow reported by the server to CONTEXT_LENGTH_EXCEEDED', async () => {
      endpoint.next = { status: 503, body: '{"error":{"message":"loading model"}}' };
      const { call: first } = call({ model: 'coder', messages: [{ role: 'user', content: 'hi' }] });
      await expect(openai().generate('coder', first)).rejects.toMatchObject({ code: ErrorCode.ProviderFailed, retryable: true });
      endpoint.next = { status: 400, body: '{"error":{"code":"context_length_exceeded","message":"This model\'s maximum context length is 8192 tokens"}}' };
      const { call: second } = call({ model: 'coder', messages: [{ role: 'user', content: 'hi' }] });
      await expect(openai().generate('coder', second)).rejects.toMatchObject({ code: ErrorCode.ContextLengthExceeded });
    });

    it('fails an unreachable endpoint with PROVIDER_FAILED instead of hanging', async () => {
      const driver = new OpenAiDriver([openAiModelSchema.parse({ id: 'gone', provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', contextSize: 4096 })], {}, log);
      const { call: c } = call({ model: 'gone', messages: [{ role: 'user', content: 'hi' }] });
      await expect(driver.generate('gone', c)).rejects.toMatchObject({ code: ErrorCode.ProviderFailed, retryable: true });
    });
  });

  describe('Anthropic', () => {
    const anthropic = () =>
      new AnthropicDriver(
        [anthropicModelSchema.parse({ id: 'claude', provider: 'anthropic', baseUrl: base, remoteModel: 'claude-sonnet-4-5', contextSize: 200_000 })],
        { ANTHROPIC_API_KEY: 'ak-test' },
        log,
      );

    it('streams text and tool_use blocks into one reply with validated calls and cache-aware usage', async () => {
      endpoint.next = { status: 200, body: fixture('anthropic-tool-use.sse') };
      const { deltas, call: c } = call({ model: 'claude', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'what is here?' }], tools, toolChoice: 'required' });
      const result = await anthropic().generate('claude', c);
      expect(deltas.join('')).toBe('Checking the workspace.');
      expect(result).toMatchObject({ text: 'Checking the workspace.', finishReason: 'tool_calls', usage: { promptTokens: 1496, cachedTokens: 1024, evaluatedTokens: 472, completionTokens: 89 } });
      expect(result.toolCalls.map((t) => [t.name, t.arguments, t.argumentsError])).toEqual([
        ['list_directory', { path: 'src' }, undefined],
        ['read_file', { path: 'package.json' }, undefined],
      ]);
      const [sent] = endpoint.requests;
      expect(sent?.url).toBe('/v1/messages');
      expect(sent?.headers['x-api-key']).toBe('ak-test');
      expect(sent?.headers['anthropic-version']).toBe('2023-06-01');
      expect(sent?.body).toMatchObject({ model: 'claude-sonnet-4-5', system: 'be brief', max_tokens: 4096, tool_choice: { type: 'any' }, stream: true });
      expect((sent?.body.tools as { input_schema: unknown }[])[0]?.input_schema).toEqual(tools[0]?.parameters);
    });

    it('turns an error event into a retryable PROVIDER_FAILED', async () => {
      endpoint.next = { status: 200, body: fixture('anthropic-overloaded.sse') };
      const { call: c } = call({ model: 'claude', messages: [{ role: 'user', content: 'hi' }] });
      await expect(anthropic().generate('claude', c)).rejects.toMatchObject({ code: ErrorCode.ProviderFailed, retryable: true });
    });

    it('writes tool calls and results as tool_use and tool_result blocks', () => {
      expect(
        toAnthropicMessages([
          { role: 'system', content: 's' },
          { role: 'user', content: 'go' },
          { role: 'assistant', content: 'ok', toolCalls: [{ id: 't1', name: 'read_file', arguments: { path: 'a' } }] },
          { role: 'tool', toolCallId: 't1', name: 'read_file', content: 'A' },
        ]),
      ).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'ok' }, { type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'A' }] },
      ]);
    });

    it('keeps a system message after the opening where it stands, as user text, out of the top-level system', () => {
      expect(
        toAnthropicMessages([
          { role: 'system', content: 's' },
          { role: 'user', content: 'go' },
          { role: 'system', content: 'env' },
        ]),
      ).toEqual([{ role: 'user', content: [{ type: 'text', text: 'go' }, { type: 'text', text: '### System message\n\nenv\n\n----' }] }]);
    });
  });
});

describe('<tool_call> text format', () => {
  it('parses calls out of the text, keeping malformed ones as invalid calls', () => {
    expect(parseToolCallText('a <tool_call>{"name":"x","arguments":{"n":1}}</tool_call> b <tool_call>{oops</tool_call>')).toEqual({
      text: 'a  b',
      calls: [
        { name: 'x', arguments: { n: 1 } },
        { name: '(unparseable tool call)', arguments: { raw: '{oops' } },
      ],
    });
  });

  it('streams prose and holds back what may be the start of a call tag', () => {
    const out: string[] = [];
    const filter = new ToolCallTextFilter((t) => out.push(t));
    for (const piece of ['Hello <', 'to', 'ol_call>{"name":"x"}</tool_call>', 'never shown']) filter.push(piece);
    filter.end();
    expect(out.join('')).toBe('Hello ');
    const plain: string[] = [];
    const other = new ToolCallTextFilter((t) => plain.push(t));
    other.push('a < b <t');
    other.end();
    expect(plain.join('')).toBe('a < b <t');
  });
});
