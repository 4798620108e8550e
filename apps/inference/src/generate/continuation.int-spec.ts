import { ErrorCode } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { connectClient, makeTempDir, makeTestModel, removeDir, startWorker, type Client, type StartedWorker } from '../testing/worker-harness';

/**
 * What the gateway sends when a generation's worker died mid-stream: the same request with the
 * text already streamed as `continueFrom`. With greedy sampling the worker that takes it over
 * must write what the lost one would have written next.
 */
describe('a reply continued from the text a lost worker streamed, on the test GGUF', () => {
  let dir: string;
  let nats: StartedService;
  let worker: StartedWorker;
  let client: Client;

  beforeAll(async () => {
    dir = await makeTempDir('weft-continue-');
    await makeTestModel(dir);
    nats = await startNats();
    worker = await startWorker(nats.url, dir, { models: [{ id: 'tiny', provider: 'llama', path: 'tiny.gguf', contextSize: 2048, threads: 1, gpuLayers: 0, sequences: 2 }] });
    client = await connectClient(nats.url);
  });

  afterAll(async () => {
    await client?.close();
    await worker?.close();
    await nats?.stop();
    await removeDir(dir);
  });

  it('continues a chat reply from the streamed text as prompt: the same continuation each time, billed as one reply', async () => {
    const request = { model: 'tiny', messages: [{ role: 'user' as const, content: 'tell a story' }], maxTokens: 24, temperature: 0, seed: 3 };
    const whole = await client.collect(request);
    // Deltas leave the worker coalesced: cut between two of them, as a worker that died would.
    expect(whole.deltas.length).toBeGreaterThan(1);
    const streamed = whole.deltas.slice(0, Math.floor(whole.deltas.length / 2)).join('');

    const continued = await client.collect({ ...request, continueFrom: streamed });
    const again = await client.collect({ ...request, continueFrom: streamed });

    // The random test model writes byte pieces that are not whole UTF-8 (U+FFFD in the text), so
    // the text streamed does not tokenize back to the tokens it came from and the unbroken
    // reply's tail is no fair yardstick (a raw completion's ASCII is, below). A run given the same prefix is.
    expect(continued.result.text).toBe(streamed + continued.deltas.join(''));
    expect(again.deltas.join('')).toBe(continued.deltas.join(''));
    // The prefix counts as the reply's, not the prompt's: the prompt is the unbroken one's.
    expect(continued.result.usage.promptTokens).toBe(whole.result.usage.promptTokens);
    // maxTokens bounds the whole reply, the lost worker's part included.
    expect(whole.result.finishReason).toBe('length');
    expect(continued.result).toMatchObject({ finishReason: 'length', usage: { completionTokens: 24 } });
  });

  it('continues a raw completion after its prompt and the text streamed with what the unbroken one wrote', async () => {
    const request = { model: 'tiny', messages: [{ role: 'user' as const, content: 'def main(' }], completion: { prompt: 'def main(' }, maxTokens: 16, temperature: 0 };
    const whole = await client.collect(request);
    const streamed = whole.deltas.slice(0, Math.floor(whole.deltas.length / 2)).join('');
    const continued = await client.collect({ ...request, continueFrom: streamed });
    expect(streamed + continued.deltas.join('')).toBe(whole.result.text);
    expect(continued.result.text).toBe(whole.result.text);
  });

  it('refuses to continue a reply under a JSON Schema', async () => {
    const code = await client.codeOf({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], jsonSchema: { type: 'object' }, continueFrom: '{' });
    expect(code).toBe(ErrorCode.InvalidRequest);
  });
});
