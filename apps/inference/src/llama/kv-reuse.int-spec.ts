import { Routes, type ChatMessage, type GenerateResult, type WorkerHeartbeat } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { connectClient, makeTempDir, makeTestModel, removeDir, startWorker, type Client, type StartedWorker } from '../testing/worker-harness';

describe('KV cache reuse across turns', () => {
  let dir: string;
  let nats: StartedService;
  let worker: StartedWorker;
  let client: Client;

  beforeAll(async () => {
    dir = await makeTempDir('weft-kv-');
    await makeTestModel(dir);
    nats = await startNats();
    const tiny = { provider: 'llama', path: 'tiny.gguf', contextSize: 2048, threads: 1, gpuLayers: 0 };
    worker = await startWorker(
      nats.url,
      dir,
      {
        models: [
          { ...tiny, id: 'tiny', sequences: 2 },
          { ...tiny, id: 'single', sequences: 1 },
        ],
      },
      { KV_STATE_DIR: `${dir}/kv` },
    );
    client = await connectClient(nats.url);
  });

  afterAll(async () => {
    await client?.close();
    await worker?.close();
    await nats?.stop();
    await removeDir(dir);
  });

  /** One turn of a session: the reply joins the history, as the agent loop does. */
  async function turn(model: string, sessionId: string, history: ChatMessage[], user: string): Promise<GenerateResult> {
    history.push({ role: 'user', content: user });
    const { result } = await client.collect({ model, sessionId, messages: history, maxTokens: 8, temperature: 0 });
    history.push({ role: 'assistant', content: result.text });
    return result;
  }

  function expectOnlyNewTokensEvaluated(result: GenerateResult) {
    const { promptTokens, cachedTokens = 0, evaluatedTokens = promptTokens } = result.usage;
    expect(cachedTokens).toBeGreaterThan(0);
    expect(evaluatedTokens).toBeLessThan(promptTokens);
    // cachedTokens comes from the prompt's common prefix with the sequence, evaluatedTokens from
    // llama.cpp's own token meter: they must add up.
    expect(evaluatedTokens).toBe(promptTokens - cachedTokens);
  }

  it('evaluates only the tokens after the previous turn on a follow-up', async () => {
    const history: ChatMessage[] = [{ role: 'system', content: 'You are a careful coding agent. Session one.' }];
    const first = await turn('tiny', 'session-one', history, 'List the files in the workspace.');
    expect(first.usage).toMatchObject({ cachedTokens: 0 });
    expect(first.usage.evaluatedTokens).toBe(first.usage.promptTokens);

    const second = await turn('tiny', 'session-one', history, 'Now read the README.');
    expectOnlyNewTokensEvaluated(second);
    // Everything up to the first reply is cached; what is new is the reply's rendering and the new question.
    expect(second.usage.cachedTokens).toBeGreaterThanOrEqual(first.usage.promptTokens);

    const third = await turn('tiny', 'session-one', history, 'And the tests?');
    expectOnlyNewTokensEvaluated(third);
    expect(third.usage.evaluatedTokens).toBeLessThan(third.usage.promptTokens / 3);
  });

  it('keeps two sessions on their own sequences and evicts the least recently used for a third', async () => {
    const a: ChatMessage[] = [{ role: 'system', content: 'Alpha agent.' }];
    const b: ChatMessage[] = [{ role: 'system', content: 'Bravo agent.' }];
    const c: ChatMessage[] = [{ role: 'system', content: 'Charlie agent.' }];
    await turn('tiny', 'lru-a', a, 'one');
    await turn('tiny', 'lru-b', b, 'one');
    expectOnlyNewTokensEvaluated(await turn('tiny', 'lru-a', a, 'two'));
    expectOnlyNewTokensEvaluated(await turn('tiny', 'lru-b', b, 'two'));
    await turn('tiny', 'lru-c', c, 'one'); // evicts lru-a, used least recently (saved to KV_STATE_DIR)
    expectOnlyNewTokensEvaluated(await turn('tiny', 'lru-b', b, 'three'));
  });

  it('saves an evicted session to disk and restores it instead of recomputing', async () => {
    const a: ChatMessage[] = [{ role: 'system', content: 'Delta agent, restored from disk.' }];
    const b: ChatMessage[] = [{ role: 'system', content: 'Echo agent, a different prefix.' }];
    const firstA = await turn('single', 'disk-a', a, 'First question for delta.');
    await turn('single', 'disk-b', b, 'First question for echo.'); // the only sequence goes to b; a is saved
    const secondA = await turn('single', 'disk-a', a, 'Second question for delta.');
    expectOnlyNewTokensEvaluated(secondA);
    expect(secondA.usage.cachedTokens).toBeGreaterThanOrEqual(firstA.usage.promptTokens);
  });

  it('reports the sessions it holds in its heartbeat', async () => {
    const beat = await new Promise<WorkerHeartbeat>((resolve) => {
      const sub = client.bus.subscribe(Routes.inferenceWorkerAnnounced, (hb) => {
        sub.unsubscribe();
        resolve(hb);
      });
    });
    const tiny = beat.models.find((m) => m.id === 'tiny');
    expect(tiny?.cachedSessions).toEqual(expect.arrayContaining(['lru-b', 'lru-c']));
    const single = beat.models.find((m) => m.id === 'single');
    expect(single?.cachedSessions).toEqual(expect.arrayContaining(['disk-a', 'disk-b']));
  });
});
