import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, startGatewayUnderTest } from '../test/gateway-under-test';
import { ScriptedWorkersModule, scriptedWorld } from '../test/scripted-workers';
import { type SessionFixture, sessionApi } from '../test/session-api';

/**
 * The cost limits of the compatible APIs (REQUEST_SCHEMA_*, REQUEST_*TOOLS*, stop strings, logit
 * bias) through the gateway's real HTTP API, on real Redis and NATS with scripted workers: a body
 * past one is a 400 naming the field, the limit and its setting, and reaches no worker.
 */
let gateway: GatewayUnderTest;
let client: ReturnType<typeof sessionApi>;
let user: SessionFixture;

function flatObject(count: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) properties[`property_${i}`] = { type: 'string' };
  return { type: 'object', properties };
}

function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { inner: schema } };
  return schema;
}

const messages = [{ role: 'user', content: 'answer in JSON' }];

beforeAll(async () => {
  gateway = await startGatewayUnderTest(ScriptedWorkersModule, { INFERENCE_TIMEOUT_MS: '20000' });
  client = sessionApi(gateway.base);
  user = await client.fixture('request-cost');
});

afterAll(async () => {
  await gateway?.stop();
});

describe('request cost limits', () => {
  it('refuses a response_format schema of 400,000 properties (12 MB) with a 400 naming the limit, before any worker sees it', async () => {
    const sent = scriptedWorld.generateRequests.length;
    const schema = flatObject(400_000);
    const body = { model: 'tiny', messages, response_format: { type: 'json_schema', json_schema: { name: 'huge', schema } } };
    const answer = await client.api('POST', '/openai/v1/chat/completions', user.key, body);
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({
      message: 'response_format.json_schema.schema has at least 400000 properties; the limit is 2000 (REQUEST_SCHEMA_MAX_PROPERTIES)',
      param: 'response_format.json_schema.schema',
    });
    expect(scriptedWorld.generateRequests.length).toBe(sent);
  });

  it('serves a schema at the limits', async () => {
    const body = { model: 'tiny', messages, response_format: { type: 'json_schema', json_schema: { name: 'at-limit', schema: flatObject(2000) } } };
    const answer = await client.api('POST', '/openai/v1/chat/completions', user.key, body);
    expect(answer.status, answer.text).toBe(200);
    expect(Object.keys((scriptedWorld.generateRequests.at(-1)?.jsonSchema?.properties ?? {}) as object)).toHaveLength(2000);
  });

  it("refuses an Anthropic tool's input schema nested too deep, in Anthropic's error shape", async () => {
    const body = { model: 'tiny', max_tokens: 16, messages, tools: [{ name: 'ok', input_schema: flatObject(1) }, { name: 'deep', input_schema: nested(40) }] };
    const answer = await client.api('POST', '/anthropic/v1/messages', user.key, body);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('tools[1].input_schema nests more than 64 levels deep; the limit is 64 (REQUEST_SCHEMA_MAX_DEPTH)') } });
  });

  it('refuses more tools than REQUEST_MAX_TOOLS on the Responses API, and too many stop strings and logit bias entries on Chat Completions', async () => {
    const tools = Array.from({ length: 129 }, (_, i) => ({ type: 'function', name: `tool_${i}`, parameters: flatObject(1) }));
    const responses = await client.api('POST', '/openai/v1/responses', user.key, { model: 'tiny', input: 'hi', tools });
    expect(responses.status).toBe(400);
    expect(responses.json.error).toMatchObject({ message: 'tools has 129 tools; the limit is 128 (REQUEST_MAX_TOOLS)', param: 'tools' });

    const stop = await client.api('POST', '/openai/v1/chat/completions', user.key, { model: 'tiny', messages, stop: Array.from({ length: 17 }, (_, i) => `s${i}`) });
    expect(stop.json.error).toMatchObject({ message: 'stop has 17 stop strings; the limit is 16' });
    const bias = Object.fromEntries(Array.from({ length: 301 }, (_, i) => [String(i), 1]));
    const logitBias = await client.api('POST', '/openai/v1/completions', user.key, { model: 'tiny', prompt: 'x', logit_bias: bias });
    expect(logitBias.json.error).toMatchObject({ message: 'logit_bias has 301 entries; the limit is 300', param: 'logit_bias' });
  });
});
