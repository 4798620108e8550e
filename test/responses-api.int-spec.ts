import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Module } from '@nestjs/common';
import { Redis } from 'ioredis';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeTestModel, removeDir, startWorker, type StartedWorker } from '../apps/inference/src/testing/worker-harness';
import { promptCacheSessionKey } from '../apps/gateway/src/compat/conversation-key';
import { FleetKeys } from '../apps/gateway/src/fleet/fleet-keys';
import { startGatewayUnderTest, TEST_ADMIN_TOKEN, type GatewayUnderTest } from '../apps/gateway/src/test/gateway-under-test';

/** The gateway is under test with a real inference worker: no stand-ins for tools or sandbox. */
@Module({})
class NoOtherWorkers {}

const SCRIPTS = {
  weather: { turns: [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }, { text: 'It is sunny in Paris.' }] },
  // Codex's sub-agent tools come in a namespace: the model calls the flat name the worker knows.
  agents: { turns: [{ text: 'Spawning.', toolCalls: [{ name: 'multi_agent_v1__spawn_agent', arguments: { task: 'lint' } }] }, { text: 'Done.' }] },
  slow: { turns: [{ text: 'one two three four five six seven eight nine ten', delayMs: 300 }] },
  // A three-step tool loop as the AI SDK drives it: write a file, run a command, answer.
  loop: {
    turns: [
      { text: 'Writing the file.', toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'hi' } }] },
      { text: 'Running it.', toolCalls: [{ name: 'run_command', arguments: { command: 'cat a.txt' } }] },
      { text: 'The file says hi.' },
    ],
  },
};

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

describe('OpenAI Responses API through the official openai client, a real worker behind a real gateway', () => {
  let dir: string;
  let gateway: GatewayUnderTest;
  let worker: StartedWorker;
  let userId: string;
  let openai: OpenAI;
  let stranger: OpenAI;
  let key: string;

  const newUser = async (name: string) => {
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const user = (await (await fetch(`${gateway.base}/v1/admin/users`, { method: 'POST', headers: admin, body: JSON.stringify({ name }) })).json()) as { id: string };
    const { key } = (await (await fetch(`${gateway.base}/v1/admin/users/${user.id}/keys`, { method: 'POST', headers: admin })).json()) as { key: string };
    return { id: user.id, key, client: new OpenAI({ baseURL: `${gateway.base}/openai/v1`, apiKey: key, maxRetries: 0 }) };
  };

  beforeAll(async () => {
    dir = await makeTempDir('weft-responses-');
    await makeTestModel(dir);
    for (const [name, script] of Object.entries(SCRIPTS)) await writeFile(join(dir, 'scripts', `${name}.json`), JSON.stringify(script));
    gateway = await startGatewayUnderTest(NoOtherWorkers);
    const registry = {
      models: [{ id: 'tiny', provider: 'llama', path: 'tiny.gguf', contextSize: 4096, threads: 1, gpuLayers: 0, sequences: 2 }],
      scripted: { dir: join(dir, 'scripts') },
    };
    worker = await startWorker(gateway.natsUrl, dir, registry);
    const me = await newUser('responses');
    userId = me.id;
    openai = me.client;
    key = me.key;
    stranger = (await newUser('stranger')).client;
    for (let i = 0; i < 100 && !(await openai.models.list()).data.some((m) => m.id === 'tiny'); i++) await sleep(100);
  });

  afterAll(async () => {
    await worker?.close().catch(() => undefined);
    await gateway?.stop();
    await removeDir(dir);
  });

  it('answers a non-streamed response with its text and usage, stores it for retrieval, and deletes it', async () => {
    const response = await openai.responses.create({ model: 'tiny', instructions: 'Be brief.', input: 'Say hello.', max_output_tokens: 16, temperature: 0 });
    expect(response).toMatchObject({ object: 'response', model: 'tiny', store: true, instructions: 'Be brief.', max_output_tokens: 16 });
    expect(response.id).toMatch(/^resp_/);
    expect(['completed', 'incomplete']).toContain(response.status);
    expect(response.output[0]).toMatchObject({ type: 'message', role: 'assistant' });
    expect(response.output_text.length).toBeGreaterThan(0);
    expect(response.usage?.output_tokens).toBeGreaterThan(0);
    expect(response.usage?.total_tokens).toBe((response.usage?.input_tokens ?? 0) + (response.usage?.output_tokens ?? 0));
    expect(response.usage?.output_tokens_details.reasoning_tokens).toBe(0);

    const again = await openai.responses.retrieve(response.id);
    expect(again).toMatchObject({ id: response.id, status: response.status, output: response.output });
    const items = await openai.responses.inputItems.list(response.id);
    expect(items.data).toEqual([expect.objectContaining({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Say hello.' }] })]);
    expect(await openai.responses.delete(response.id)).toEqual({ id: response.id, object: 'response', deleted: true });
    await expect(openai.responses.retrieve(response.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("streams the typed events in OpenAI's order with sequence numbers, the same text as the final response", async () => {
    const stream = await openai.responses.create({ model: 'tiny', input: 'Tell me something.', max_output_tokens: 16, temperature: 0, stream: true, store: false });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect(types.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', expect.stringMatching(/^response\.(completed|incomplete)$/)]);
    expect(types.filter((t) => t === 'response.output_text.delta').length).toBeGreaterThan(0);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('');
    const last = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(last.response.output).toEqual([expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: deltas })] })]);
    expect(last.response.usage?.input_tokens_details.cached_tokens).toBeGreaterThanOrEqual(0);
    // Not stored: nothing to retrieve.
    await expect(openai.responses.retrieve(last.response.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('assembles a response with responses.stream, which checks every item it was told of', async () => {
    const stream = openai.responses.stream({ model: 'tiny', input: [{ role: 'developer', content: 'Answer in one word.' }, { role: 'user', content: 'Colour of the sky?' }], max_output_tokens: 16 });
    let text = '';
    stream.on('response.output_text.delta', (event) => (text += event.delta));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe(text);
    expect(final.usage?.input_tokens).toBeGreaterThan(0);
  });

  it('round-trips a function call with a strict tool, statelessly and by previous_response_id', async () => {
    const first = await openai.responses.create({ model: 'scripted/weather', input: 'Weather in Paris?', tools: [weatherTool] });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(first.status).toBe('completed');
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
    expect(JSON.parse((call as OpenAI.Responses.ResponseFunctionToolCall).arguments)).toEqual({ city: 'Paris' });
    const callId = (call as OpenAI.Responses.ResponseFunctionToolCall).call_id;

    // Chained: only the tool's output is sent, the rest comes from the stored response.
    const chained = await openai.responses.create({
      model: 'scripted/weather',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: callId, output: '{"sky":"clear"}' }],
      tools: [weatherTool],
    });
    expect(chained.output_text).toBe('It is sunny in Paris.');
    expect(chained.previous_response_id).toBe(first.id);

    // Stateless, as Codex sends it: the whole history with the call and its output.
    const stateless = await openai.responses.create({
      model: 'scripted/weather',
      store: false,
      input: [{ role: 'user', content: 'Weather in Paris?' }, ...first.output, { type: 'function_call_output', call_id: callId, output: '{"sky":"clear"}' }] as OpenAI.Responses.ResponseInput,
      tools: [weatherTool],
    });
    expect(stateless.output_text).toBe('It is sunny in Paris.');
  });

  it("calls a namespaced tool by Codex's namespace and name, streamed", async () => {
    const namespace = { type: 'namespace', name: 'multi_agent_v1', description: 'Sub-agents', tools: [{ type: 'function', name: 'spawn_agent', strict: false, parameters: { type: 'object', properties: { task: { type: 'string' } } } }] };
    const stream = await openai.responses.create({
      model: 'scripted/agents',
      input: 'Lint it with a sub-agent.',
      tools: [namespace, { type: 'web_search' }] as unknown as OpenAI.Responses.Tool[],
      stream: true,
      store: false,
    });
    const done: unknown[] = [];
    for await (const event of stream) if (event.type === 'response.output_item.done') done.push(event.item);
    expect(done).toEqual([
      expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: 'Spawning.' })] }),
      expect.objectContaining({ type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{"task":"lint"}' }),
    ]);
  });

  it('counts input tokens with the model’s own template, as the generation does, and counts a chained history', async () => {
    const params = { model: 'tiny', instructions: 'Be brief.', input: 'How many tokens is this?' };
    const { input_tokens } = (await openai.post('/responses/input_tokens', { body: params })) as { input_tokens: number };
    const response = await openai.responses.create({ ...params, max_output_tokens: 16 });
    expect(input_tokens).toBe(response.usage?.input_tokens);
    const chained = (await openai.post('/responses/input_tokens', { body: { model: 'tiny', previous_response_id: response.id, input: 'And now?' } })) as { input_tokens: number };
    const alone = (await openai.post('/responses/input_tokens', { body: { model: 'tiny', input: 'And now?' } })) as { input_tokens: number };
    expect(chained.input_tokens).toBeGreaterThan(alone.input_tokens);
  });

  describe.each([
    { api: 'generateText', store: true },
    { api: 'streamText', store: true },
    { api: 'generateText', store: false },
    { api: 'streamText', store: false },
  ])("the AI SDK's default provider, $api with store $store", ({ api, store }) => {
    it('completes a three-step tool loop, its earlier replies sent back by item_reference when stored', async () => {
      const bodies: Array<{ input: Array<{ type?: string; id?: string }> }> = [];
      const provider = createOpenAI({
        baseURL: `${gateway.base}/openai/v1`,
        apiKey: key,
        fetch: (url, init) => {
          if (typeof init?.body === 'string') bodies.push(JSON.parse(init.body) as (typeof bodies)[number]);
          return fetch(url, init);
        },
      });
      const ran: string[] = [];
      const tools = {
        write_file: tool({
          description: 'Write a file',
          inputSchema: jsonSchema<{ path: string; content: string }>({ type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] }),
          execute: ({ path }) => (ran.push(`write ${path}`), 'written'),
        }),
        run_command: tool({
          description: 'Run a command',
          inputSchema: jsonSchema<{ command: string }>({ type: 'object', properties: { command: { type: 'string' } }, required: ['command'] }),
          execute: ({ command }) => (ran.push(`run ${command}`), 'hi'),
        }),
      };
      const params = { model: provider('scripted/loop'), tools, stopWhen: stepCountIs(5), prompt: 'Write a.txt and print it.', providerOptions: { openai: { store } } };
      const result = api === 'generateText' ? await generateText(params) : streamText(params);
      expect(await result.text).toBe('The file says hi.');
      expect(ran).toEqual(['write a.txt', 'run cat a.txt']);
      const steps = await result.steps;
      expect(steps).toHaveLength(3);
      const references = bodies.map((body) => body.input.filter((item) => item.type === 'item_reference').length);
      expect(references).toEqual(store ? [0, 1, 2] : [0, 0, 0]);
      if (!store) return;
      // The referenced reply reached the model whole: the stored input of the second step holds its text.
      const items = await openai.responses.inputItems.list(steps[1]!.response.id, { order: 'asc' });
      expect(items.data).toContainEqual(expect.objectContaining({ type: 'message', role: 'assistant', content: [expect.objectContaining({ text: 'Writing the file.' })] }));
      // Another user's item is not found, as an unknown one is.
      const reference = bodies[1]!.input.find((item) => item.type === 'item_reference')!;
      const theirs = await stranger.responses.create({ model: 'scripted/loop', input: [{ type: 'item_reference', id: reference.id! }] }).catch((error: unknown) => error);
      expect(theirs).toBeInstanceOf(OpenAI.NotFoundError);
      expect((theirs as { param?: string }).param).toBe('input[0].id');
    });
  });

  it('refuses max_output_tokens below 16 and an include value OpenAI does not know, as OpenAI does', async () => {
    const small = await openai.responses.create({ model: 'tiny', input: 'Hi.', max_output_tokens: 15 }).catch((error: unknown) => error);
    expect(small).toBeInstanceOf(OpenAI.BadRequestError);
    expect(small).toMatchObject({ param: 'max_output_tokens', requestID: expect.any(String) });
    const include = ['reasoning.encrypted_content', 'everything'] as unknown as OpenAI.Responses.ResponseIncludable[];
    const unknown = await openai.responses.create({ model: 'tiny', input: 'Hi.', include }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(OpenAI.BadRequestError);
    expect((unknown as { param?: string }).param).toBe('include[1]');
  });

  it("never shows one user's stored response to another: a 404 as for an unknown id", async () => {
    const mine = await openai.responses.create({ model: 'tiny', input: 'Private.', max_output_tokens: 16 });
    await expect(stranger.responses.retrieve(mine.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(stranger.responses.delete(mine.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(stranger.responses.cancel(mine.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(stranger.responses.inputItems.list(mine.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const chained = await stranger.responses.create({ model: 'tiny', previous_response_id: mine.id, input: 'x' }).catch((error: unknown) => error);
    expect(chained).toBeInstanceOf(OpenAI.BadRequestError);
    expect((chained as { param?: string }).param).toBe('previous_response_id');
    expect((await openai.responses.retrieve(mine.id)).id).toBe(mine.id);
  });

  it('cancels a stored response in progress from another request, and refuses to cancel a finished one', async () => {
    const stream = await openai.responses.create({ model: 'scripted/slow', input: 'Count slowly.', stream: true });
    let id = '';
    let cancelled: OpenAI.Responses.Response | undefined;
    const types: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.created') id = event.response.id;
      if (event.type === 'response.output_text.delta' && !cancelled) cancelled = await openai.responses.cancel(id);
    }
    expect(cancelled).toMatchObject({ id, status: 'cancelled' });
    expect(types.at(-1)).toBe('response.failed');
    expect((await openai.responses.retrieve(id)).status).toBe('cancelled');
    const finished = await openai.responses.create({ model: 'tiny', input: 'Hi.', max_output_tokens: 16 });
    await expect(openai.responses.cancel(finished.id)).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('routes by prompt_cache_key: the session follows the key, and its cache is reused', async () => {
    const redis = new Redis(gateway.redisUrl);
    try {
      const key = `codex-${Date.now()}`;
      const system = 'You are a coding agent. Follow the repository conventions and keep answers short.';
      const ask = (question: string) =>
        openai.responses.create({ model: 'tiny', input: [{ role: 'developer', content: system }, { role: 'user', content: question }], prompt_cache_key: key, max_output_tokens: 16, temperature: 0, store: false });
      await ask('First question about the build.');
      const affinity = new FleetKeys(gateway.redisKeyPrefix).affinity(promptCacheSessionKey(userId, 'tiny', key));
      expect(await redis.get(affinity)).not.toBeNull();
      // A different first user message would be another conversation key; the cache key keeps the sequence.
      const second = await ask('Another question about the tests.');
      expect(second.usage?.input_tokens_details.cached_tokens).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
  });

  it('answers every other route under /openai/v1, any method, with a 404 in OpenAI error shape', async () => {
    const unknown: Array<[string, string]> = [
      ['GET', '/openai/v1/assistants'],
      ['POST', '/openai/v1/responses/compact'],
      ['DELETE', '/openai/v1/models'],
      ['GET', '/openai/v1'],
    ];
    for (const [method, path] of unknown) {
      const response = await fetch(`${gateway.base}${path}`, { method, headers: { authorization: 'Bearer nope' } });
      expect(response.status, `${method} ${path}`).toBe(404);
      const body = (await response.json()) as { error: Record<string, unknown> };
      expect(body.error).toEqual({ message: expect.stringContaining(path), type: 'not_found_error', param: null, code: 'COMMON.NOT_FOUND' });
    }
    await expect(openai.get('/vector_stores')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });
});
