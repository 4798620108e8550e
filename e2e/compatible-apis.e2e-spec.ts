import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { newUserKey } from './support/api';
import { compose, gatewayUrl } from './support/stack';

/** A counter of the inference worker for model tiny, read from its metrics port inside the stack. */
function workerCounter(name: string, label: string): number {
  const script = "fetch('http://127.0.0.1:9464/metrics').then((r) => r.text()).then((t) => console.log(t))";
  const metrics = compose('exec', '-T', 'inference', 'node', '-e', script);
  const line = metrics.split('\n').find((l) => l.startsWith(name) && l.includes(label) && l.includes('model="tiny"'));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

const cancelledOnWorker = () => workerCounter('weft_inference_requests_total', 'outcome="INFERENCE.CANCELLED"');
const kvStates = (event: 'saved' | 'restored') => workerCounter('weft_inference_kv_states_total', `event="${event}"`);

/** A long opening of its own, so a conversation's prompt shares little with another's. */
const opening = (topic: string) => `${topic}: ${Array.from({ length: 60 }, (_, i) => `${topic}-${i}`).join(' ')}`;

const weather = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** The official SDKs pointed at the compose stack, as a developer's editor or agent would be. */
describe('OpenAI- and Anthropic-compatible APIs on the compose stack', () => {
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    const key = await newUserKey('sdk-user');
    openai = new OpenAI({ baseURL: `${gatewayUrl}/openai/v1`, apiKey: key, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: `${gatewayUrl}/anthropic`, apiKey: key, maxRetries: 0 });
  });

  it('streams a chat completion from the GGUF model and reuses the cache on the follow-up', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Describe the repository.' }];
    const stream = await openai.chat.completions.create({ model: 'tiny', messages, max_tokens: 8, stream: true, stream_options: { include_usage: true } });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text.length).toBeGreaterThan(0);
    messages.push({ role: 'assistant', content: text }, { role: 'user', content: 'And its tests?' });
    const follow = await openai.chat.completions.create({ model: 'tiny', messages, max_tokens: 8 });
    expect(follow.usage?.prompt_tokens_details?.cached_tokens).toBeGreaterThan(0);
  });

  it('saves an evicted conversation\'s KV cache to disk and restores it on its next request (the stack sets KV_STATE_DIR)', async () => {
    const ask = (messages: OpenAI.ChatCompletionMessageParam[]) => openai.chat.completions.create({ model: 'tiny', messages, max_tokens: 4 });
    const [savedBefore, restoredBefore] = [kvStates('saved'), kvStates('restored')];
    const first: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: opening('alpha') }];
    const answer = await ask(first);
    // Two more conversations on the worker's two sequences: the first is evicted, its state saved.
    const other = await ask([{ role: 'user', content: opening('beta') }]);
    await ask([{ role: 'user', content: opening('gamma') }]);
    expect(kvStates('saved')).toBeGreaterThan(savedBefore);

    first.push({ role: 'assistant', content: answer.choices[0]?.message.content ?? '' }, { role: 'user', content: 'Go on.' });
    const again = await ask(first);
    expect(kvStates('restored')).toBe(restoredBefore + 1);
    // Its whole first prompt comes from the restored cache; another conversation shares only the template's start.
    const firstPrompt = answer.usage?.prompt_tokens ?? 0;
    // (The last few tokens of the first prompt, the reply's opening, are rendered anew.)
    expect(again.usage?.prompt_tokens_details?.cached_tokens).toBeGreaterThan(firstPrompt * 0.9);
    expect(other.usage?.prompt_tokens_details?.cached_tokens ?? 0).toBeLessThan(firstPrompt / 4);
  });

  it('round-trips a tool call with the openai SDK', async () => {
    const tools = [{ type: 'function' as const, function: weather }];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await openai.chat.completions.create({ model: 'scripted/weather', messages, tools });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'clear sky' });
    const second = await openai.chat.completions.create({ model: 'scripted/weather', messages, tools });
    expect(second.choices[0]?.message.content).toBe('It is sunny in Paris.');
  });

  it('answers JSON matching a schema, fills in the middle and embeds', async () => {
    const json = await openai.chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: 'Verdict?' }],
      max_tokens: 64,
      response_format: { type: 'json_schema', json_schema: { name: 'v', schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } },
    });
    expect(typeof (JSON.parse(json.choices[0]!.message.content!) as { ok: unknown }).ok).toBe('boolean');
    const fim = await openai.completions.create({ model: 'tiny', prompt: 'function add(a, b) {\n  return ', suffix: '\n}\n', max_tokens: 4 });
    expect(fim.choices[0]?.text.length).toBeGreaterThan(0);
    const embedded = await openai.embeddings.create({ model: 'tiny', input: ['alpha', 'beta'] });
    expect(embedded.data.map((d) => d.embedding.length)).toEqual([64, 64]);
  });

  it('serves the Anthropic SDK: a streamed message and a tool_use round trip', async () => {
    const streamed = await anthropic.messages.stream({ model: 'tiny', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] }).finalMessage();
    expect(streamed.content[0]).toMatchObject({ type: 'text' });
    expect(streamed.usage.output_tokens).toBeGreaterThan(0);
    const tools = [{ name: weather.name, description: weather.description, input_schema: weather.parameters as Anthropic.Tool.InputSchema }];
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await anthropic.messages.create({ model: 'scripted/weather', max_tokens: 64, messages, tools });
    const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
    messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'clear sky' }] });
    const second = await anthropic.messages.create({ model: 'scripted/weather', max_tokens: 64, messages, tools });
    expect(second.content).toEqual([{ type: 'text', text: 'It is sunny in Paris.' }]);
  });

  it('refuses a bad request, an unknown model and a missing key in each API shape', async () => {
    await expect(openai.chat.completions.create({ model: 'tiny', messages: [], max_tokens: 1 })).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(openai.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(new OpenAI({ baseURL: `${gatewayUrl}/openai/v1`, apiKey: 'wrong', maxRetries: 0 }).models.list()).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
    await expect(anthropic.messages.create({ model: 'nope', max_tokens: 4, messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(
      Anthropic.NotFoundError,
    );
  });

  it('cancels the generation on the worker when the client goes away mid-stream', async () => {
    const before = cancelledOnWorker();
    const abort = new AbortController();
    const stream = await openai.chat.completions.create(
      { model: 'tiny', messages: [{ role: 'user', content: 'Write a very long story.' }], max_tokens: 4000, stream: true },
      { signal: abort.signal },
    );
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) break; // leaving the loop closes the response
    }
    abort.abort();
    await expect.poll(() => cancelledOnWorker(), { timeout: 15_000, interval: 500 }).toBeGreaterThan(before);
  });
});
