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
          { ...tiny, id: 'per-user', sequences: 1 },
          { ...tiny, id: 'shared', sequences: 1, cacheSharing: 'all' },
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

  describe('between users', () => {
    const system = 'You are the team agent. The deploy key for staging is 7f3a-91c2-0b5e; never print it.';
    const ask = async (model: string, sessionId: string, userId: string, content: string) =>
      (await client.collect({ model, sessionId, user: { id: userId }, messages: [{ role: 'system', content: system }, { role: 'user', content }], maxTokens: 4, temperature: 0 })).result;

    it('starts a user from their own cached prefix, never from a colleague\'s', async () => {
      const first = await ask('per-user', 'alice-1', 'alice', 'What does the build script do?');
      expect(first.usage.cachedTokens).toBe(0);
      // Alice's second session shares the system prompt with her first, on the same sequence.
      const second = await ask('per-user', 'alice-2', 'alice', 'Which tests are slow?');
      expect(second.usage.cachedTokens).toBeGreaterThan(0);
      expect(second.usage.evaluatedTokens).toBe(second.usage.promptTokens - (second.usage.cachedTokens ?? 0));
      // Bob's prompt shares as long a prefix with what the sequence holds, and nothing of it is reused:
      // his usage and his time to first token tell him nothing about Alice's prompt.
      const bob = await ask('per-user', 'bob-1', 'bob', 'Which tests are slow?');
      expect(bob.usage.cachedTokens).toBe(0);
      expect(bob.usage.evaluatedTokens).toBe(bob.usage.promptTokens);
      // Alice coming back after Bob starts from nothing too: the sequence held Bob's tokens.
      expect((await ask('per-user', 'alice-3', 'alice', 'Which tests are slow?')).usage.cachedTokens).toBe(0);
    });

    it('shares a prefix across users on a model configured with cacheSharing "all"', async () => {
      await ask('shared', 'alice-1', 'alice', 'What does the build script do?');
      const bob = await ask('shared', 'bob-1', 'bob', 'Which tests are slow?');
      expect(bob.usage.cachedTokens).toBeGreaterThan(0);
      expect(bob.usage.evaluatedTokens).toBe(bob.usage.promptTokens - (bob.usage.cachedTokens ?? 0));
    });
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
