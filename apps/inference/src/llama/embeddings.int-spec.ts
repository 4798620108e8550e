import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode, Routes, type EmbedRequest } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { connectClient, makeTempDir, makeTestModel, removeDir, startWorker, type Client, type StartedWorker } from '../testing/worker-harness';
import { EMBED_MAX_REPLY_VALUES, EMBED_MAX_REQUEST_TOKENS } from './embedding-runner';

/** Embeddings on the worker, on the project's tiny GGUF: bounded before any evaluation, fair across users, cancellable. */
describe('embeddings', () => {
  let dir: string;
  let nats: StartedService;
  let worker: StartedWorker;
  let client: Client;
  const embed = (request: EmbedRequest) => client.rpc.request(Routes.inferenceEmbed, request, { timeoutMs: 120_000 });
  const codeOf = (request: EmbedRequest) =>
    embed(request).then(
      () => undefined,
      (error: unknown) => (error instanceof AppError ? error.code : String(error)),
    );
  /** Tokens of `text` as the model counts them. */
  const tokensOf = async (text: string, model = 'tiny') => (await embed({ model, input: [text] })).promptTokens;
  const UNIT = 'alpha beta gamma delta ';
  let tokensPerUnit: number;
  /** A text of about `tokens` tokens. */
  const textOf = (tokens: number) => UNIT.repeat(Math.max(1, Math.floor(tokens / tokensPerUnit)));

  beforeAll(async () => {
    dir = await makeTempDir('weft-embeddings-');
    await makeTestModel(dir);
    await makeTestModel(dir, 'long.gguf', ['--context', '8192']);
    // Vectors of 4,096 numbers, as a 7B model's: 256 of them would not fit in one NATS reply.
    await makeTestModel(dir, 'wide.gguf', ['--embedding', '4096', '--layers', '1', '--feed-forward', '256', '--heads', '32', '--kv-heads', '8', '--type', 'q4_0']);
    nats = await startNats();
    const common = { provider: 'llama', threads: 1, gpuLayers: 0, sequences: 1, embeddings: true };
    worker = await startWorker(nats.url, dir, {
      models: [
        { ...common, id: 'tiny', path: 'tiny.gguf', contextSize: 512, maxQueue: 4 },
        { ...common, id: 'long', path: 'long.gguf', contextSize: 8192 },
        { ...common, id: 'wide', path: 'wide.gguf', contextSize: 256 },
      ],
    });
    client = await connectClient(nats.url, 120_000);
    tokensPerUnit = (await tokensOf(UNIT.repeat(10))) / 10;
  });

  afterAll(async () => {
    await client?.close();
    await worker?.close();
    await nats?.stop();
    await removeDir(dir);
  });

  it('embeds each input into one vector and counts their tokens', async () => {
    const one = await tokensOf('alpha beta');
    const result = await embed({ model: 'tiny', input: ['alpha beta', 'alpha beta'], user: { id: 'ada' } });
    expect(result.embeddings.map((v) => v.length)).toEqual([64, 64]);
    expect(result.promptTokens).toBe(2 * one);
  });

  it('refuses an input longer than the embedding context, naming it, even after inputs that fit', async () => {
    const refused = await embed({ model: 'tiny', input: ['short', textOf(600)] }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: ErrorCode.ContextLengthExceeded, details: { param: 'input[1]', contextSize: 512 } });
  });

  it(`refuses a request whose inputs take more than ${EMBED_MAX_REQUEST_TOKENS} tokens together`, async () => {
    const input = textOf(6000);
    const inputs = Math.ceil(EMBED_MAX_REQUEST_TOKENS / (await tokensOf(input, 'long'))) + 1;
    const refused = await embed({ model: 'long', input: Array.from({ length: inputs }, () => input) }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: ErrorCode.ContextLengthExceeded, message: expect.stringContaining('tokens together'), details: { maxRequestTokens: EMBED_MAX_REQUEST_TOKENS } });
  });

  it('refuses more inputs than one reply can carry for the model, naming how many it takes', async () => {
    const most = EMBED_MAX_REPLY_VALUES / 4096;
    const refused = await embed({ model: 'wide', input: Array.from({ length: most + 1 }, () => 'a') }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: ErrorCode.InvalidRequest, details: { param: 'input', maxInputs: most, vectorSize: 4096 } });
    expect((await embed({ model: 'wide', input: ['a', 'b'] })).embeddings.map((v) => v.length)).toEqual([4096, 4096]);
  });

  it("serves another user's input between the inputs of a long request, and stops the long one when it is cancelled", async () => {
    const chatMs = async () => {
      const started = performance.now();
      const chat = await client.collect({ model: 'tiny', user: { id: 'chat' }, messages: [{ role: 'user', content: 'hi' }], maxTokens: 4 });
      expect(chat.result.usage.completionTokens).toBeGreaterThan(0);
      return (performance.now() - started).toFixed(0);
    };
    await chatMs();
    const alone = await chatMs();
    const requestId = randomUUID();
    const long = embed({ model: 'tiny', requestId, user: { id: 'bulk' }, input: Array.from({ length: 256 }, (_, i) => `${textOf(400)}${i}`) });
    let longSettled = false;
    const outcome = long.then(
      () => 'finished',
      (error: unknown) => (error instanceof AppError ? error.code : String(error)),
    );
    void outcome.then(() => (longSettled = true));
    // Queued behind at most one input of the long request, not behind all 256.
    const short = await embed({ model: 'tiny', user: { id: 'other' }, input: ['hello'] });
    expect(short.embeddings).toHaveLength(1);
    // A chat reply on the same model is not held behind the embeddings either.
    const beside = await chatMs();
    console.log(`embeddings: a 4-token chat reply took ${alone} ms alone, ${beside} ms beside a 256-input embedding request`);
    expect(longSettled).toBe(false);

    const cancelledAt = performance.now();
    client.bus.publish(Routes.inferenceCancel, { requestId });
    expect(await outcome).toBe(ErrorCode.GenerationCancelled);
    console.log(`embeddings: the cancelled request's work stopped ${(performance.now() - cancelledAt).toFixed(0)} ms after the cancel`);
    // The worker is free again: a new request is served.
    expect((await embed({ model: 'tiny', input: ['after'] })).embeddings).toHaveLength(1);
  });

  it('refuses a request past maxQueue + 1 at once on one model with INFERENCE.BUSY', async () => {
    const ids = Array.from({ length: 5 }, () => randomUUID());
    const input = Array.from({ length: 256 }, () => textOf(400));
    const running = ids.map((requestId, i) => codeOf({ model: 'tiny', requestId, user: { id: `u${i}` }, input }));
    expect(await codeOf({ model: 'tiny', user: { id: 'late' }, input: ['late'] })).toBe(ErrorCode.InferenceBusy);
    for (const requestId of ids) client.bus.publish(Routes.inferenceCancel, { requestId });
    expect(new Set(await Promise.all(running))).toEqual(new Set([ErrorCode.GenerationCancelled]));
  });
});
