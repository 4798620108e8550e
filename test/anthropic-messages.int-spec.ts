import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { Module } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeTestModel, removeDir, startWorker, type StartedWorker } from '../apps/inference/src/testing/worker-harness';
import { startGatewayUnderTest, TEST_ADMIN_TOKEN, type GatewayUnderTest } from '../apps/gateway/src/test/gateway-under-test';

/** The gateway is under test with a real inference worker: no stand-ins for tools or sandbox. */
@Module({})
class NoOtherWorkers {}

/** Claude Code 2.1.332's real first request: method, url, headers and body. */
const claudeCode = JSON.parse(readFileSync(resolve(__dirname, 'fixtures/agent-clients/claude-code-2.1.332-first-request.json'), 'utf8')) as {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
};

/** Claude Code's tool search: ToolSearch loads WebFetch by reference, the model then calls it. */
const TOOL_SEARCH_SCRIPT = {
  turns: [
    { toolCalls: [{ name: 'ToolSearch', arguments: { query: 'select:WebFetch' } }] },
    { toolCalls: [{ name: 'WebFetch', arguments: { url: 'https://example.com' } }] },
    { text: 'Fetched.' },
  ],
};

const objectSchema = (properties: Record<string, unknown>) => ({ type: 'object' as const, properties });
const TOOLS = [
  { name: 'ToolSearch', description: 'Loads deferred tools', input_schema: objectSchema({ query: { type: 'string' } }) },
  { name: 'WebFetch', description: 'Fetches a URL', input_schema: objectSchema({ url: { type: 'string' } }), defer_loading: true },
];

describe('Anthropic Messages as Claude Code 2.1.x sends them, real worker behind a real gateway', () => {
  let dir: string;
  let gateway: GatewayUnderTest;
  let worker: StartedWorker;
  let key: string;
  let anthropic: Anthropic;

  beforeAll(async () => {
    dir = await makeTempDir('weft-anthropic-');
    // Claude Code's system prompt and tools take about 35k tokens of the test tokenizer.
    await makeTestModel(dir, 'tiny.gguf', ['--context', '65536']);
    await writeFile(join(dir, 'scripts', 'tool-search.json'), JSON.stringify(TOOL_SEARCH_SCRIPT));
    gateway = await startGatewayUnderTest(NoOtherWorkers);
    const tiny = { id: 'tiny', provider: 'llama', path: 'tiny.gguf', contextSize: 40_960, threads: 1, gpuLayers: 0, sequences: 1 };
    const small = { ...tiny, id: 'small', contextSize: 256 };
    worker = await startWorker(gateway.natsUrl, dir, { models: [tiny, small], scripted: { dir: join(dir, 'scripts') } });
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const user = (await (await fetch(`${gateway.base}/v1/admin/users`, { method: 'POST', headers: admin, body: '{"name":"claude-code"}' })).json()) as { id: string };
    key = ((await (await fetch(`${gateway.base}/v1/admin/users/${user.id}/keys`, { method: 'POST', headers: admin })).json()) as { key: string }).key;
    anthropic = new Anthropic({ baseURL: `${gateway.base}/anthropic`, apiKey: key, maxRetries: 0 });
  });

  afterAll(async () => {
    await worker?.close().catch(() => undefined);
    await gateway?.stop();
    await removeDir(dir);
  });

  // About 35k prompt tokens evaluated on a CPU (40 s to nearly 3 min on a loaded 2-core machine).
  it("streams a proper message for Claude Code's first request, sent to ?beta=true with its betas", { timeout: 480_000 }, async () => {
    const betas = claudeCode.headers['anthropic-beta']?.split(',') ?? [];
    // The body as Claude Code sends it: a system entry in `messages`, fields the SDK's types lack.
    const params = { ...claudeCode.body, model: 'tiny', max_tokens: 8, betas } as unknown as Anthropic.Beta.MessageCreateParamsStreaming;
    const urls: string[] = [];
    const recording = new Anthropic({ baseURL: `${gateway.base}/anthropic`, apiKey: key, maxRetries: 0, fetch: (url, init) => (urls.push(String(url)), fetch(url, init)) });
    const started = performance.now();
    // Claude Code's SDK adds `?beta=true` to beta calls; this SDK's version does not.
    const final = await recording.beta.messages.stream(params, { query: { beta: 'true' } }).finalMessage();
    const firstMs = performance.now() - started;
    expect(urls.map((url) => new URL(url).pathname + new URL(url).search)).toEqual(['/anthropic/v1/messages?beta=true']);
    expect(final).toMatchObject({ type: 'message', role: 'assistant', model: 'tiny' });
    expect(final.content[0]).toMatchObject({ type: 'text' });
    expect(final.stop_reason).toMatch(/^(end_turn|max_tokens)$/);
    expect(final.usage.output_tokens).toBeGreaterThan(0);
    // The billing header changes every request and is dropped: the next one reuses the whole prompt.
    const system = (claudeCode.body.system as { type: string; text: string }[]).map((b, i) => (i === 0 ? { ...b, text: 'x-anthropic-billing-header: cc_version=2.1.332.54d; cc_entrypoint=sdk-cli;' } : b));
    const restarted = performance.now();
    const again = await anthropic.beta.messages.stream({ ...params, system } as Anthropic.Beta.MessageCreateParamsStreaming).finalMessage();
    expect(again.usage.cache_read_input_tokens).toBeGreaterThan(final.usage.input_tokens / 2);
    expect(performance.now() - restarted).toBeLessThan(firstMs / 2);
  });

  it('counts the same prompt with count_tokens, ?beta=true too', async () => {
    // As sent to messages, `max_tokens` and `stream` included: count_tokens takes and ignores them.
    const counted = await anthropic.beta.messages.countTokens({ ...claudeCode.body, model: 'tiny' } as unknown as Anthropic.Beta.MessageCountTokensParams, { query: { beta: 'true' } });
    expect(counted.input_tokens).toBeGreaterThan(1000);
  });

  it('round-trips tool search: ToolSearch answered with a tool_reference, then the loaded tool is called (scripted model)', async () => {
    const messages: Anthropic.Beta.BetaMessageParam[] = [{ role: 'user', content: 'Fetch example.com' }];
    const ask = () => anthropic.beta.messages.create({ model: 'scripted/tool-search', max_tokens: 100, messages, tools: TOOLS });
    const search = await ask();
    const searchUse = search.content.find((b) => b.type === 'tool_use');
    expect(searchUse).toMatchObject({ name: 'ToolSearch', input: { query: 'select:WebFetch' } });
    messages.push(
      { role: 'assistant', content: search.content as Anthropic.Beta.BetaContentBlockParam[] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: searchUse!.id, content: [{ type: 'tool_reference', tool_name: 'WebFetch' }] }] },
    );
    const fetchCall = await ask();
    const fetchUse = fetchCall.content.find((b) => b.type === 'tool_use');
    expect(fetchUse).toMatchObject({ name: 'WebFetch', input: { url: 'https://example.com' } });
    messages.push({ role: 'assistant', content: fetchCall.content as Anthropic.Beta.BetaContentBlockParam[] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: fetchUse!.id, content: '<html>' }] });
    expect((await ask()).content).toEqual([{ type: 'text', text: 'Fetched.' }]);
  });

  it('keeps a deferred tool out of the prompt until a tool_reference loads it, then appends it (tokens of the real template)', async () => {
    const count = (messages: Anthropic.Beta.BetaMessageParam[], tools: Anthropic.Beta.BetaToolUnion[]) =>
      anthropic.beta.messages.countTokens({ model: 'tiny', messages, tools }).then((r) => r.input_tokens);
    const [searchOnly, webFetch] = [TOOLS[0]!, { ...TOOLS[1]!, defer_loading: undefined }];
    const opening: Anthropic.Beta.BetaMessageParam[] = [{ role: 'user', content: 'Fetch example.com' }];
    expect(await count(opening, TOOLS)).toBe(await count(opening, [searchOnly]));
    expect(await count(opening, TOOLS)).toBeLessThan(await count(opening, [searchOnly, webFetch]));
    const loaded: Anthropic.Beta.BetaMessageParam[] = [
      ...opening,
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ToolSearch', input: { query: 'select:WebFetch' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'tool_reference', tool_name: 'WebFetch' }] }] },
    ];
    expect(await count(loaded, TOOLS)).toBe(await count(loaded, [searchOnly, webFetch]));
  });

  it('refuses a tool_reference to an undeclared tool in Anthropic words', async () => {
    const refused = await anthropic.beta.messages
      .create({
        model: 'tiny',
        max_tokens: 5,
        tools: TOOLS,
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ToolSearch', input: { query: 'select:Nope' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'tool_reference', tool_name: 'Nope' }] }] },
        ],
      })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect(refused).toMatchObject({
      status: 400,
      error: { type: 'error', error: { type: 'invalid_request_error', message: "messages.2.content.0.content.0.tool_name: Tool reference 'Nope' not found in available tools" } },
    });
  });

  it("refuses a prompt over the context in Anthropic's words, with the numbers Claude Code compacts by", async () => {
    const refused = await anthropic.messages.create({ model: 'small', max_tokens: 8, messages: [{ role: 'user', content: 'word '.repeat(400) }] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringMatching(/^prompt is too long: \d+ tokens > 256 maximum$/) },
    });
  });

  it('answers the connectivity check without a key, GET and HEAD, and unknown routes with a 404 in Anthropic shape', async () => {
    const head = await fetch(`${gateway.base}/anthropic/api/hello`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const get = await fetch(`${gateway.base}/anthropic/api/hello`);
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({ type: 'hello' });
    for (const [method, path] of [
      ['GET', '/anthropic/v1/messages'],
      ['POST', '/anthropic/v1/messages/batches'],
      ['DELETE', '/anthropic/v1/files/file_1'],
      ['PUT', '/anthropic/nothing-here?key=secret'],
    ] as const) {
      const response = await fetch(`${gateway.base}${path}`, { method, headers: { 'x-api-key': key } });
      expect(response.status, `${method} ${path}`).toBe(404);
      const body = (await response.json()) as { type: string; error: { type: string; message: string } };
      expect(body).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
      expect(body.error.message).not.toContain('secret');
    }
  });
});
