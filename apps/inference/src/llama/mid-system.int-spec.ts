import type { ChatMessage } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { connectClient, makeTempDir, makeTestModel, removeDir, startWorker, type Client, type StartedWorker } from '../testing/worker-harness';

/** ChatML that refuses a system message anywhere but first, as several published templates do. */
const SYSTEM_FIRST_ONLY =
  "{% for message in messages %}{% if message['role'] == 'system' and not loop.first %}{{ raise_exception('System message must be at the beginning.') }}{% endif %}" +
  "<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

/** Claude Code's shape: the system prompt, the user's turn, then a system message with the environment. */
const conversation: ChatMessage[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'say hi' },
  { role: 'system', content: '# Environment\nPrimary working directory: /tmp/proj' },
];
const foldedByHand: ChatMessage[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'say hi\n\n### System message\n\n# Environment\nPrimary working directory: /tmp/proj\n\n----' },
];

describe('a system message after the first user turn, on the test GGUF', () => {
  let dir: string;
  let nats: StartedService;
  let worker: StartedWorker;
  let client: Client;

  beforeAll(async () => {
    dir = await makeTempDir('weft-mid-system-');
    await makeTestModel(dir);
    nats = await startNats();
    const tiny = { provider: 'llama', path: 'tiny.gguf', contextSize: 1024, threads: 1, gpuLayers: 0, sequences: 1 };
    worker = await startWorker(nats.url, dir, {
      models: [
        { ...tiny, id: 'chatml' },
        { ...tiny, id: 'system-first-only', chatTemplate: { jinja: SYSTEM_FIRST_ONLY } },
      ],
    });
    client = await connectClient(nats.url);
  });

  afterAll(async () => {
    await client?.close();
    await worker?.close();
    await nats?.stop();
    await removeDir(dir);
  });

  const promptTokens = async (model: string, messages: ChatMessage[]) => (await client.collect({ model, messages, countOnly: true })).result.usage.promptTokens;

  it('is folded into the user turn where the template refuses it, the system prompt left a system turn', async () => {
    expect(await promptTokens('system-first-only', conversation)).toBe(await promptTokens('system-first-only', foldedByHand));
    const { result } = await client.collect({ model: 'system-first-only', messages: conversation, maxTokens: 4, temperature: 0 });
    expect(result.usage.completionTokens).toBeGreaterThan(0);
  });

  it('stays a system turn of its own where the template holds it (ChatML)', async () => {
    expect(await promptTokens('chatml', conversation)).not.toBe(await promptTokens('chatml', foldedByHand));
    const { result } = await client.collect({ model: 'chatml', messages: conversation, maxTokens: 4, temperature: 0 });
    expect(result.usage.completionTokens).toBeGreaterThan(0);
  });
});
