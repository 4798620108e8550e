import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Anthropic from '@anthropic-ai/sdk';
import { Module } from '@nestjs/common';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InferenceService } from '../apps/inference/src/generate/inference.service';
import { makeTempDir, makeTestModel, removeDir, startWorker, type StartedWorker } from '../apps/inference/src/testing/worker-harness';
import { FleetKeys } from '../apps/gateway/src/fleet/fleet-keys';
import { startGatewayUnderTest, TEST_ADMIN_TOKEN, type GatewayUnderTest } from '../apps/gateway/src/test/gateway-under-test';

/** The gateway is under test with real inference workers: no stand-ins for tools or sandbox. */
@Module({})
class NoOtherWorkers {}

const TOOL_SCRIPT = {
  turns: [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }, { text: 'It is sunny in Paris.' }],
};

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('OpenAI- and Anthropic-compatible APIs, real workers behind a real gateway', () => {
  let dir: string;
  let gateway: GatewayUnderTest;
  let workers: StartedWorker[] = [];
  let key: string;
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    dir = await makeTempDir('weft-compat-');
    await makeTestModel(dir);
    await makeTestModel(dir, 'no-fim.gguf', ['--no-fim']);
    await writeFile(join(dir, 'scripts', 'weather.json'), JSON.stringify(TOOL_SCRIPT));
    gateway = await startGatewayUnderTest(NoOtherWorkers);
    const registry = {
      models: [
        { id: 'tiny', provider: 'llama', path: 'tiny.gguf', contextSize: 4096, threads: 1, gpuLayers: 0, sequences: 2, embeddings: true },
        { id: 'no-fim', provider: 'llama', path: 'no-fim.gguf', contextSize: 2048, threads: 1, gpuLayers: 0, sequences: 1 },
      ],
      scripted: { dir: join(dir, 'scripts') },
    };
    // Both workers run in this process: a model load blocks the heartbeats of both for a moment.
    const slowBeats = { HEARTBEAT_INTERVAL_MS: '2000' };
    workers = await Promise.all([startWorker(gateway.natsUrl, dir, registry, slowBeats), startWorker(gateway.natsUrl, dir, registry, slowBeats)]);
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const user = (await (await fetch(`${gateway.base}/v1/admin/users`, { method: 'POST', headers: admin, body: '{"name":"compat"}' })).json()) as { id: string };
    key = ((await (await fetch(`${gateway.base}/v1/admin/users/${user.id}/keys`, { method: 'POST', headers: admin })).json()) as { key: string }).key;
    openai = new OpenAI({ baseURL: `${gateway.base}/openai/v1`, apiKey: key, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: `${gateway.base}/anthropic`, apiKey: key, maxRetries: 0 });
    // Both workers in the gateway's fleet registry (mirrored in Redis), so routing has a choice
    // to make and a session's affinity points at a worker the router knows.
    const redis = new Redis(gateway.redisUrl);
    const fleetWorkers = new FleetKeys(gateway.redisKeyPrefix).workers();
    for (let i = 0; i < 200 && (await redis.zcard(fleetWorkers)) < 2; i++) await sleep(100);
    expect(await redis.zcard(fleetWorkers)).toBe(2);
    redis.disconnect();
  });

  afterAll(async () => {
    for (const worker of workers) await worker.close().catch(() => undefined);
    await gateway?.stop();
    await removeDir(dir);
  });

  it('lists the registry models in OpenAI shape, one by one too', async () => {
    const ids = (await openai.models.list()).data.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['tiny', 'scripted/weather']));
    expect(await openai.models.retrieve('scripted/weather')).toMatchObject({ id: 'scripted/weather', object: 'model', owned_by: 'weft' });
  });

  it('evaluates only the new tokens of a growing conversation sent statelessly, with two workers in the fleet', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: 'You are a careful coding agent. Conversation one.' }];
    const usages: OpenAI.CompletionUsage[] = [];
    for (const question of ['List the files.', 'Now read the README.', 'Summarise it in one line.']) {
      messages.push({ role: 'user', content: question });
      const reply = await openai.chat.completions.create({ model: 'tiny', messages, max_tokens: 8, temperature: 0 });
      messages.push({ role: 'assistant', content: reply.choices[0]?.message.content ?? '' });
      usages.push(reply.usage!);
    }
    expect(usages[0]?.prompt_tokens_details?.cached_tokens).toBe(0);
    for (const usage of usages.slice(1)) {
      const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
      expect(cached).toBeGreaterThan(0);
      // The earlier turns are reused: fewer than half the prompt is evaluated again.
      expect(usage.prompt_tokens - cached).toBeLessThan(usage.prompt_tokens / 2);
    }
  });

  it('streams chat deltas and the usage chunk, the same text as the reply', async () => {
    const stream = await openai.chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: 'Say something.' }],
      max_tokens: 12,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish ??= chunk.choices[0]?.finish_reason;
      usage ??= chunk.usage;
    }
    expect(text.length).toBeGreaterThan(0);
    expect(finish).toMatch(/^(stop|length)$/);
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    expect(usage?.total_tokens).toBe((usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0));
  });

  it('answers JSON that parses and matches the schema (grammar-constrained)', async () => {
    const reply = await openai.chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: 'Is the build green?' }],
      max_tokens: 64,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'verdict', schema: { type: 'object', properties: { green: { type: 'boolean' } }, required: ['green'], additionalProperties: false } },
      },
    });
    const parsed = JSON.parse(reply.choices[0]?.message.content ?? '') as { green: unknown };
    expect(typeof parsed.green).toBe('boolean');
  });

  it('round-trips a tool call: the model calls, the client answers, the model replies', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await openai.chat.completions.create({ model: 'scripted/weather', messages, tools: [weatherTool] });
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call?.type === 'function' && call.function).toMatchObject({ name: 'get_weather' });
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call!.id, content: '{"sky":"clear"}' });
    const second = await openai.chat.completions.create({ model: 'scripted/weather', messages, tools: [weatherTool] });
    expect(second.choices[0]?.message.content).toBe('It is sunny in Paris.');
    expect(second.choices[0]?.finish_reason).toBe('stop');
    // One more turn than the script holds: a 400 that says so, not an opaque 500.
    messages.push(second.choices[0]!.message, { role: 'user', content: 'And tomorrow?' });
    const past = await openai.chat.completions.create({ model: 'scripted/weather', messages }).catch((error: unknown) => error);
    expect(past).toBeInstanceOf(OpenAI.BadRequestError);
    expect((past as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/Script "scripted\/weather" has 2 turns here/);
  });

  it('caps a max_tokens above what a worker takes instead of refusing it (Claude Code asks for 32000 and more)', async () => {
    const reply = await anthropic.messages.stream({ model: 'scripted/weather', max_tokens: 64_000, messages: [{ role: 'user', content: 'Weather?' }] }).finalMessage();
    expect(reply.type).toBe('message');
  });

  it('streams a tool call as tool_calls deltas', async () => {
    const stream = await openai.chat.completions.create({
      model: 'scripted/weather',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [weatherTool],
      stream: true,
    });
    const calls: OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
    for await (const chunk of stream) calls.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
  });

  it('refuses bad requests in OpenAI error shape: unsupported n, unknown model, missing or wrong key', async () => {
    const bad = await openai.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: 'x' }], n: 2 }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect(bad).toMatchObject({ status: 400, param: 'n', error: { type: 'invalid_request_error' } });

    const image = await openai.chat.completions
      .create({ model: 'tiny', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:,' } }] }] })
      .catch((e: unknown) => e);
    expect(image).toMatchObject({ status: 400, param: 'messages[0].content[0].type' });

    const unknown = await openai.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown).toMatchObject({ code: 'model_not_found' });
    expect((unknown as Error).message).toContain('tiny');

    const anonymous = new OpenAI({ baseURL: `${gateway.base}/openai/v1`, apiKey: 'weft_not-a-key', maxRetries: 0 });
    const denied = await anonymous.models.list().catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(OpenAI.AuthenticationError);

    const malformed = await fetch(`${gateway.base}/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"model":',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { type: 'invalid_request_error', message: 'Malformed JSON in request body' } });
  });

  it('fills in the middle with the model FIM tokens, streamed or not, and says clearly when a model has none', async () => {
    const whole = await openai.completions.create({ model: 'tiny', prompt: 'def add(a, b):\n    return ', suffix: '\n\nprint(add(1, 2))', max_tokens: 6, temperature: 0 });
    expect(whole.object).toBe('text_completion');
    expect(whole.choices[0]?.text.length).toBeGreaterThan(0);
    expect(whole.choices[0]?.finish_reason).toBe('length');
    expect(whole.usage?.completion_tokens).toBe(6);

    let streamed = '';
    const stream = await openai.completions.create({ model: 'tiny', prompt: 'const x = ', suffix: ';', max_tokens: 6, temperature: 0, stream: true });
    for await (const chunk of stream) streamed += chunk.choices[0]?.text ?? '';
    expect(streamed.length).toBeGreaterThan(0);

    const plain = await openai.completions.create({ model: 'no-fim', prompt: 'Once upon a time', max_tokens: 4 });
    expect(plain.usage?.completion_tokens).toBe(4);
    const refused = await openai.completions.create({ model: 'no-fim', prompt: 'a', suffix: 'b' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as Error).message).toMatch(/no fill-in-the-middle tokens \(missing: prefix, suffix, middle\)/);
  });

  it('embeds texts with a model declared for embeddings, float and base64 alike', async () => {
    const viaSdk = await openai.embeddings.create({ model: 'tiny', input: ['hello world', 'goodbye'] });
    expect(viaSdk.data).toHaveLength(2);
    const dims = viaSdk.data[0]!.embedding.length;
    expect(dims).toBe(64);
    const floats = await openai.embeddings.create({ model: 'tiny', input: 'hello world', encoding_format: 'float' });
    // The SDK decodes base64 itself: both encodings carry the same vector.
    floats.data[0]!.embedding.forEach((v, i) => expect(viaSdk.data[0]!.embedding[i]).toBeCloseTo(v, 5));
    expect(viaSdk.usage.prompt_tokens).toBeGreaterThan(0);
    const refused = await openai.embeddings.create({ model: 'no-fim', input: 'x' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 400, param: 'model' });
    expect((refused as Error).message).toContain('models that do: tiny');
  });

  it('cancels the generation on the worker when the client disconnects', async () => {
    const abort = new AbortController();
    const stream = await openai.chat.completions.create(
      { model: 'tiny', messages: [{ role: 'user', content: 'Write a very long story.' }], max_tokens: 3000, stream: true },
      { signal: abort.signal },
    );
    const running = () => workers.reduce((sum, w) => sum + w.app.get(InferenceService).running, 0);
    let runningWhileStreaming = 0;
    for await (const chunk of stream) {
      runningWhileStreaming = running();
      if (chunk.choices[0]?.delta.content) break; // leaving the loop aborts the request
    }
    abort.abort();
    expect(runningWhileStreaming).toBe(1);
    for (let i = 0; i < 100 && running() > 0; i++) await sleep(50);
    expect(running()).toBe(0);
  });

  it('counts tokens and lists models while sessions generate and others wait for a sequence: no turn in the generation queue', async () => {
    const abort = new AbortController();
    const started = new Set<number>();
    let ended = 0;
    const generate = async (i: number) => {
      const content = `Session ${i}: write a very long story.`;
      const stream = await openai.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content }], max_tokens: 3000, stream: true }, { signal: abort.signal });
      for await (const chunk of stream) if (chunk.choices[0]?.delta.content) started.add(i);
      ended++;
    };
    const sessions = Array.from({ length: 8 }, (_, i) => generate(i).catch((error: unknown) => (abort.signal.aborted ? undefined : Promise.reject(error))));
    try {
      // Sequences generate for some sessions (as many as the fleet gives one user); the others wait for one.
      for (let i = 0; i < 400 && started.size < 2; i++) await sleep(25);
      expect(started.size).toBeGreaterThanOrEqual(2);
      const params = { model: 'tiny', messages: [{ role: 'user' as const, content: 'How long is this?' }] };
      const { input_tokens } = await anthropic.messages.countTokens(params);
      const counted = (await openai.post('/responses/input_tokens', { body: { model: 'tiny', input: 'How long is this?' } })) as { input_tokens: number };
      const models = await anthropic.models.list();
      expect(input_tokens).toBeGreaterThan(0);
      expect(counted.input_tokens).toBeGreaterThan(0);
      expect(models.data.map((m) => m.id)).toContain('tiny');
      // Answered while not one of the eight generations had ended, with some still waiting for a sequence.
      expect(ended).toBe(0);
      expect(workers.reduce((sum, w) => sum + w.app.get(InferenceService).running, 0)).toBeGreaterThanOrEqual(2);
      expect(started.size).toBeLessThan(8);
    } finally {
      abort.abort();
      await Promise.all(sessions);
      // The next tests count the workers' generations: wait for the cancelled ones to leave.
      const running = () => workers.reduce((sum, w) => sum + w.app.get(InferenceService).running, 0);
      for (let i = 0; i < 200 && running() > 0; i++) await sleep(50);
    }
  });

  it('serves Anthropic Messages: streaming text with usage, and count_tokens agreeing with it', async () => {
    const params = { model: 'tiny', system: 'Be brief.', messages: [{ role: 'user' as const, content: 'Hello there.' }] };
    const final = await anthropic.messages.stream({ ...params, max_tokens: 10, temperature: 0 }).finalMessage();
    expect(final.role).toBe('assistant');
    expect(final.content[0]).toMatchObject({ type: 'text' });
    expect(final.stop_reason).toMatch(/^(end_turn|max_tokens)$/);
    expect(final.usage.output_tokens).toBeGreaterThan(0);
    const { input_tokens } = await anthropic.messages.countTokens(params);
    expect(input_tokens).toBe(final.usage.input_tokens + (final.usage.cache_read_input_tokens ?? 0));
  });

  it('round-trips an Anthropic tool_use with a tool_result, key sent as x-api-key', async () => {
    const tools = [{ name: 'get_weather', description: 'The weather in a city', input_schema: weatherTool.function.parameters as Anthropic.Tool.InputSchema }];
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await anthropic.messages.create({ model: 'scripted/weather', max_tokens: 100, messages, tools });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    expect(use).toMatchObject({ name: 'get_weather', input: { city: 'Paris' } });
    expect(use!.id).toMatch(/^toolu_01[A-Za-z0-9]{16}$/);
    messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use!.id, content: 'clear sky' }] });
    const second = await anthropic.messages.create({ model: 'scripted/weather', max_tokens: 100, messages, tools });
    expect(second.content).toEqual([{ type: 'text', text: 'It is sunny in Paris.' }]);
    expect(second.stop_reason).toBe('end_turn');
  });

  it('ends an Anthropic reply at a stop sequence with stop_reason stop_sequence and the string, streamed or not', async () => {
    const params = { model: 'scripted/weather', max_tokens: 100, stop_sequences: ['nowhere', 'sunny'], messages: [{ role: 'user' as const, content: 'Weather?' }, { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 'toolu_1', name: 'get_weather', input: {} }] }, { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_1', content: 'clear' }] }] };
    const whole = await anthropic.messages.create(params);
    expect(whole).toMatchObject({ content: [{ type: 'text', text: 'It is ' }], stop_reason: 'stop_sequence', stop_sequence: 'sunny' });
    const streamed = await anthropic.messages.stream(params).finalMessage();
    expect(streamed).toMatchObject({ content: [{ type: 'text', text: 'It is ' }], stop_reason: 'stop_sequence', stop_sequence: 'sunny' });
    const unstopped = await anthropic.messages.create({ ...params, stop_sequences: ['nowhere'] });
    expect(unstopped).toMatchObject({ stop_reason: 'end_turn', stop_sequence: null });
  });

  it('streams an Anthropic tool_use block the SDK assembles', async () => {
    const tools = [{ name: 'get_weather', input_schema: weatherTool.function.parameters as Anthropic.Tool.InputSchema }];
    const final = await anthropic.messages
      .stream({ model: 'scripted/weather', max_tokens: 100, messages: [{ role: 'user', content: 'Weather?' }], tools })
      .finalMessage();
    expect(final.content).toEqual([expect.objectContaining({ type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'get_weather', input: { city: 'Paris' } })]);
    expect(final.stop_reason).toBe('tool_use');
  });

  it('refuses bad Anthropic requests in its error shape', async () => {
    const unknown = await anthropic.messages.create({ model: 'nope', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    expect(unknown).toMatchObject({ status: 404, error: { type: 'error', error: { type: 'not_found_error' } } });
    // The SDK reads `request-id`: the id the gateway logged the request under.
    expect((unknown as InstanceType<typeof Anthropic.NotFoundError>).requestID).toMatch(/^[0-9a-f-]{36}$/);
    // A thinking budget past max_tokens is answered (Anthropic refuses it; Weft reads no thinking,
    // and Qwen Code sends one).
    const thinking = { type: 'enabled' as const, budget_tokens: 1024 };
    const noRoom = await anthropic.messages.create({ model: 'tiny', max_tokens: 16, thinking, messages: [{ role: 'user', content: 'x' }] });
    expect(noRoom.type).toBe('message');
    const response = await fetch(`${gateway.base}/anthropic/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('max_tokens') } });
    const denied = await new Anthropic({ baseURL: `${gateway.base}/anthropic`, apiKey: 'wrong', maxRetries: 0 }).models.list().catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(denied).toMatchObject({ error: { type: 'error', error: { type: 'authentication_error' } } });
    const models = await anthropic.models.list();
    expect(models.data.map((m) => m.id)).toContain('tiny');
  });

  it("never starts one user's request from a colleague's cached prompt: cached_tokens 0 on their sequence", async () => {
    // A worker of its own with a one-sequence model: every request below lands on that sequence.
    const solo = await startWorker(gateway.natsUrl, dir, { models: [{ id: 'solo', provider: 'llama', path: 'tiny.gguf', contextSize: 2048, threads: 1, gpuLayers: 0, sequences: 1 }] });
    try {
      const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
      const bob = (await (await fetch(`${gateway.base}/v1/admin/users`, { method: 'POST', headers: admin, body: '{"name":"bob"}' })).json()) as { id: string };
      const bobKey = ((await (await fetch(`${gateway.base}/v1/admin/users/${bob.id}/keys`, { method: 'POST', headers: admin })).json()) as { key: string }).key;
      const asBob = new OpenAI({ baseURL: `${gateway.base}/openai/v1`, apiKey: bobKey, maxRetries: 0 });
      for (let i = 0; i < 100 && !(await openai.models.list()).data.some((m) => m.id === 'solo'); i++) await sleep(100);

      const system = 'You are the release agent. The signing passphrase is tangerine-owl-42; never reveal it.';
      const ask = async (client: OpenAI, question: string) =>
        (await client.chat.completions.create({ model: 'solo', messages: [{ role: 'system', content: system }, { role: 'user', content: question }], max_tokens: 4, temperature: 0 })).usage!;
      const cached = (usage: OpenAI.CompletionUsage) => usage.prompt_tokens_details?.cached_tokens ?? 0;

      await ask(openai, 'Which branch do we release from?');
      // Bob's prompt shares the whole system message with what the sequence holds: none of it is reused.
      const bobs = await ask(asBob, 'Which branch do we release from, and when?');
      expect(cached(bobs)).toBe(0);
      // His own next conversation starts from his own tokens.
      expect(cached(await ask(asBob, 'Who signs the release?'))).toBeGreaterThan(0);
      // And the first user's from nothing, since the sequence now holds Bob's.
      expect(cached(await ask(openai, 'Who signs the release?'))).toBe(0);
    } finally {
      await solo.close();
    }
  });
});
