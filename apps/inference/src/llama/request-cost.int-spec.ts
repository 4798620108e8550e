import { copyFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { AppError, ErrorCode } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { connectClient, makeTempDir, makeTestModel, removeDir, startWorker, type Client, type StartedWorker } from '../testing/worker-harness';

const root = resolve(__dirname, '../../../..');
/**
 * The most one request may hold the worker's event loop while another user's request waits: a
 * budget for this test, generous on a shared 2-core machine, not a speed claim (figures printed).
 */
const EVENT_LOOP_BUDGET_MS = 1000;

function properties(count: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) out[`property_${i}`] = { type: 'string' };
  return out;
}

/** Just under every REQUEST_SCHEMA_* default: 1,999 properties, 999 enum values, about 70 KB. */
function schemaUnderTheLimits(): Record<string, unknown> {
  const choice = { enum: Array.from({ length: 999 }, (_, i) => `choice_${i}`) };
  return { type: 'object', properties: { choice, ...properties(1998) } };
}

describe("a request's cost on the inference worker", () => {
  let dir: string;
  let nats: StartedService;
  let worker: StartedWorker;
  let client: Client;
  const messages = [{ role: 'user' as const, content: 'answer in JSON' }];

  beforeAll(async () => {
    dir = await makeTempDir('weft-request-cost-');
    await makeTestModel(dir);
    await copyFile(join(root, 'config/scripts/demo.json'), join(dir, 'scripts/demo.json'));
    nats = await startNats();
    worker = await startWorker(nats.url, dir, {
      models: [{ id: 'tiny', provider: 'llama', path: 'tiny.gguf', contextSize: 1024, threads: 1, gpuLayers: 0, sequences: 2 }],
      scripted: { dir: 'scripts' },
    });
    client = await connectClient(nats.url);
    await client.collect({ model: 'tiny', messages, maxTokens: 1 });
  });

  afterAll(async () => {
    await client?.close();
    await worker?.close();
    await nats?.stop();
    await removeDir(dir);
  });

  it('refuses a 400,000-property schema sent straight to the worker, naming the limit, and answers another request meanwhile', async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const [hostile, other] = await Promise.all([
      client.collect({ model: 'tiny', messages, jsonSchema: { type: 'object', properties: properties(400_000) } }).catch((error: unknown) => error),
      client.collect({ model: 'scripted/demo', messages }),
    ]);
    delay.disable();
    expect(hostile).toBeInstanceOf(AppError);
    expect(hostile).toMatchObject({
      code: ErrorCode.InvalidRequest,
      message: 'jsonSchema has at least 400000 properties; the limit is 2000 (REQUEST_SCHEMA_MAX_PROPERTIES)',
      details: { param: 'jsonSchema', limit: 2000, setting: 'REQUEST_SCHEMA_MAX_PROPERTIES' },
    });
    expect(other.result.text).toContain('Let me look');
    // The test's client encodes and the worker decodes the 12 MB message on this same loop (NATS max_payload bounds it): a figure, not a bound.
    console.log(`400,000-property schema refused: the event loop's longest delay ${(delay.max / 1e6).toFixed(0)} ms`);
  });

  it("builds the grammar of a schema just under the limits within its budget, without holding the event loop while another user's request is answered", async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = performance.now();
    const [json, other] = await Promise.all([
      client.collect({ model: 'tiny', user: { id: 'alice' }, messages, jsonSchema: schemaUnderTheLimits(), maxTokens: 8 }),
      client.collect({ model: 'scripted/demo', user: { id: 'bob' }, messages }),
    ]);
    const elapsed = performance.now() - started;
    delay.disable();
    expect(json.result.usage.completionTokens).toBeGreaterThan(0);
    expect(other.result.text).toContain('Let me look');
    console.log(`schema under the limits: answered in ${elapsed.toFixed(0)} ms; the event loop's longest delay ${(delay.max / 1e6).toFixed(0)} ms (p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms)`);
    expect(delay.max / 1e6).toBeLessThan(EVENT_LOOP_BUDGET_MS);
  });

  it("refuses a prompt of more characters than the model's context could hold without tokenizing it", async () => {
    const content = 'x'.repeat(4 * 1024 * 1024);
    const chat = await client.collect({ model: 'tiny', messages: [{ role: 'user', content }] }).catch((error: unknown) => error);
    expect(chat).toMatchObject({ code: ErrorCode.ContextLengthExceeded, details: { promptChars: content.length, contextSize: 1024 } });
    const completion = await client.collect({ model: 'tiny', messages: [{ role: 'user', content }], completion: { prompt: content } }).catch((error: unknown) => error);
    expect(completion).toMatchObject({ code: ErrorCode.ContextLengthExceeded, details: { promptChars: content.length } });
  });

  it('refuses tool schemas past the totals before any grammar is built', async () => {
    const tools = Array.from({ length: 3 }, (_, i) => ({ name: `tool_${i}`, description: '', parameters: { type: 'object', properties: properties(1800) } }));
    const refused = await client.collect({ model: 'tiny', messages, tools }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: ErrorCode.InvalidRequest, message: 'tools has at least 5400 properties; the limit is 5000 (REQUEST_TOOLS_MAX_PROPERTIES)' });
  });
});
