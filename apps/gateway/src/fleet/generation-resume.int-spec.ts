import { randomBytes } from 'node:crypto';
import type { StoredSessionEvent } from '@weft/contracts';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayUnderTest, TEST_ADMIN_TOKEN, type GatewayUnderTest } from '../test/gateway-under-test';
import { ScriptedWorkersModule } from '../test/scripted-workers';
import { ofType, sessionApi } from '../test/session-api';
import { FakeFleetWorker } from './fake-fleet-worker';

const REPLY = ['The ', 'quick ', 'brown ', 'fox ', 'jumps ', 'over ', 'the ', 'lazy ', 'dog.'];

/**
 * A generation whose inference worker dies mid-stream, driven through the gateway's public API:
 * an agent turn's event log, and streamed OpenAI chat, Responses and Anthropic requests through the SDKs. The workers speak the worker
 * protocol and stream a deterministic reply; the first stops mid-way and vanishes.
 */
describe('a generation that outlives its inference worker, through the gateway', () => {
  let gateway: GatewayUnderTest;
  let client: ReturnType<typeof sessionApi>;
  let workers: FakeFleetWorker[] = [];

  beforeAll(async () => {
    gateway = await startGatewayUnderTest(ScriptedWorkersModule);
    client = sessionApi(gateway.base);
  });

  afterEach(async () => {
    for (const worker of workers) await worker.close().catch(() => undefined);
    workers = [];
  });

  afterAll(async () => {
    await gateway?.stop();
  });

  async function worker(name: string, behaviour: FakeFleetWorker['behaviour']): Promise<FakeFleetWorker> {
    const started = await FakeFleetWorker.start(gateway.natsUrl, `${name}-${randomBytes(2).toString('hex')}`, { intervalMs: 300 });
    started.behaviour = behaviour;
    workers.push(started);
    return started;
  }

  /** The first worker streams `stallAfter` deltas; then a second comes up and the first dies. */
  async function moveAfter(first: FakeFleetWorker, streamed: () => boolean | Promise<boolean>): Promise<FakeFleetWorker> {
    await waitFor(streamed);
    const second = await worker('second', { reply: REPLY });
    await first.kill();
    workers = workers.filter((w) => w !== first);
    return second;
  }

  it('completes an agent turn on another worker: each delta once in the event log, one generation.resumed', async () => {
    const f = await client.fixture(`resume-${randomBytes(2).toString('hex')}`);
    const first = await worker('first', { reply: REPLY, stallAfter: 4 });
    await waitForHeartbeat();
    const { after } = await client.start(f, '/messages', { content: 'tell me about the fox' });
    const second = await moveAfter(first, () => first.requests.some((r) => !r.countOnly));
    const events: StoredSessionEvent[] = await client.follow(f, after);

    expect(events.at(-1)?.type).toBe('turn.completed');
    expect(ofType(events, 'message.delta').map((e) => e.text).join('')).toBe(REPLY.join(''));
    expect(ofType(events, 'message.resync')).toEqual([]);
    // The resume starts from what reached the gateway: the first worker sent 4 deltas, but one
    // killed with deltas still in its socket loses them, so it may be fewer.
    const continueFrom = second.requests[0]?.continueFrom ?? '';
    expect(continueFrom.length).toBeGreaterThan(0);
    expect(REPLY.slice(0, 4).join('').startsWith(continueFrom)).toBe(true);
    expect(ofType(events, 'generation.resumed')).toEqual([expect.objectContaining({ model: 'tiny', streamedChars: continueFrom.length })]);
    // Billed once, from the worker that finished it (the fake reports 5 + one token a delta).
    expect(ofType(events, 'turn.completed')[0]?.usage).toMatchObject({ promptTokens: 5, completionTokens: REPLY.length });
  });

  it('keeps a streamed OpenAI chat completion going: the official SDK reads the whole reply once', async () => {
    const f = await client.fixture(`resume-openai-${randomBytes(2).toString('hex')}`);
    const openai = new OpenAI({ baseURL: `${gateway.base}/openai/v1`, apiKey: f.key, maxRetries: 0 });
    const first = await worker('first', { reply: REPLY, stallAfter: 3 });
    await waitForHeartbeat();
    const stream = await openai.chat.completions.create({ model: 'tiny', stream: true, messages: [{ role: 'user', content: 'the fox' }] });
    const pieces: string[] = [];
    let finish: string | null | undefined;
    const read = (async () => {
      for await (const chunk of stream) {
        const choice = chunk.choices[0];
        if (choice?.delta.content) pieces.push(choice.delta.content);
        if (choice?.finish_reason) finish = choice.finish_reason;
      }
    })();
    const second = await moveAfter(first, () => pieces.length === 3);
    await read;

    expect(pieces.join('')).toBe(REPLY.join(''));
    expect(finish).toBe('stop');
    expect(second.requests[0]?.continueFrom).toBe(REPLY.slice(0, 3).join(''));
  });

  it('keeps a streamed Responses API response going: one text, each delta once', async () => {
    const f = await client.fixture(`resume-responses-${randomBytes(2).toString('hex')}`);
    const openai = new OpenAI({ baseURL: `${gateway.base}/openai/v1`, apiKey: f.key, maxRetries: 0 });
    const first = await worker('first', { reply: REPLY, stallAfter: 2 });
    await waitForHeartbeat();
    const stream = await openai.responses.create({ model: 'tiny', input: 'the fox', stream: true, store: false });
    const deltas: string[] = [];
    let last: OpenAI.Responses.ResponseStreamEvent | undefined;
    const read = (async () => {
      for await (const event of stream) {
        if (event.type === 'response.output_text.delta') deltas.push(event.delta);
        last = event;
      }
    })();
    await moveAfter(first, () => deltas.length === 2);
    await read;

    expect(deltas.join('')).toBe(REPLY.join(''));
    expect(last).toMatchObject({ type: 'response.completed', response: { output: [expect.objectContaining({ content: [expect.objectContaining({ text: REPLY.join('') })] })] } });
  });

  it('keeps a streamed Anthropic message going: the official SDK reads the whole reply once', async () => {
    const f = await client.fixture(`resume-anthropic-${randomBytes(2).toString('hex')}`);
    const anthropic = new Anthropic({ baseURL: `${gateway.base}/anthropic`, apiKey: f.key, maxRetries: 0 });
    const first = await worker('first', { reply: REPLY, stallAfter: 5 });
    await waitForHeartbeat();
    const pieces: string[] = [];
    const stream = anthropic.messages.stream({ model: 'tiny', max_tokens: 64, messages: [{ role: 'user', content: 'the fox' }] });
    stream.on('text', (text) => pieces.push(text));
    const second = await moveAfter(first, () => pieces.length === 5);
    const message = await stream.finalMessage();

    expect(pieces.join('')).toBe(REPLY.join(''));
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: REPLY.join('') })]);
    expect(second.requests[0]?.continueFrom).toBe(REPLY.slice(0, 5).join(''));
  });

  /** The gateway has heard the worker: its fleet routes there rather than to the queue group. */
  async function waitForHeartbeat(): Promise<void> {
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    await waitFor(async () => {
      const response = await fetch(`${gateway.base}/v1/admin/fleet`, { headers: admin });
      const body = (await response.json()) as { workers?: { workerId: string }[] };
      return workers.every((w) => body.workers?.some((seen) => seen.workerId === w.workerId) === true);
    });
  }
});

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
