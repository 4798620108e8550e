import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import { loadConfig, toolsConfigSchema } from '@weft/config';
import type { StoredSessionEvent } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, startGatewayUnderTest } from '../apps/gateway/src/test/gateway-under-test';
import { ScriptedModelModule, script } from '../apps/gateway/src/test/scripted-workers';
import { sessionApi } from '../apps/gateway/src/test/session-api';
import { STORAGE_VERSION } from '../apps/gateway/src/storage/migrations';
import { storageVersionKey } from '../apps/gateway/src/storage/storage-keys';
import { startToolsWorker } from '../apps/tools/src/bootstrap';
import { FIXTURE_ANSWER, FIXTURE_RULES, type FixtureFacts } from '../scripts/stored-data/fixture-facts';
import { type StartedService, startRedis } from './support/containers';
import { loadStoredData, storedDataFixture } from './support/stored-data';

/**
 * Data stored by an earlier release must be read by this one. Each fixture under
 * test/fixtures/stored-data/ was written by that release's gateway (scripts/stored-data); this
 * loads it into a fresh Redis and workspaces folder, starts today's gateway on it (which migrates
 * it), and reads it back through the public API. Never edit a fixture to make this pass.
 */
describe.each([1])('stored data of format v%i', (version) => {
  let redisServer: StartedService;
  let redis: Redis;
  let gateway: GatewayUnderTest;
  let tools: INestMicroservice;
  let workspaces: string;
  let facts: FixtureFacts;
  let api: ReturnType<typeof sessionApi>['api'];
  const prefix = `stored-${randomBytes(4).toString('hex')}:`;

  beforeAll(async () => {
    redisServer = await startRedis();
    redis = new Redis(redisServer.url);
    workspaces = await mkdtemp(join(tmpdir(), 'weft-stored-data-'));
    facts = await loadStoredData(storedDataFixture(version), redis, prefix, workspaces);
    gateway = await startGatewayUnderTest(ScriptedModelModule, { REDIS_URL: redisServer.url, REDIS_KEY_PREFIX: prefix });
    tools = await startToolsWorker(loadConfig(toolsConfigSchema, { NATS_URL: gateway.natsUrl, WORKSPACES_DIR: workspaces, LOG_LEVEL: 'silent' }), createLogger('tools', 'silent'));
    api = sessionApi(gateway.base).api;
  });

  afterAll(async () => {
    await tools?.close();
    await gateway?.stop();
    redis?.disconnect();
    await redisServer?.stop();
    if (workspaces) await rm(workspaces, { recursive: true, force: true });
  });

  it('is migrated to the current format when the gateway starts', async () => {
    expect(await redis.get(storageVersionKey(prefix))).toBe(String(STORAGE_VERSION));
  });

  it("authenticates the user's key", async () => {
    const me = await api('GET', '/v1/me', facts.key);
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ id: facts.userId, name: 'ada' });
    expect((await api('GET', '/v1/me/keys', facts.key)).json.keys).toHaveLength(2);
  });

  it('lists the session with its messages and the finished turn in its events', async () => {
    const sessions = await api('GET', '/v1/sessions', facts.key);
    expect(JSON.stringify(sessions.json)).toContain(facts.sessionId);
    const session = await api('GET', `/v1/sessions/${facts.sessionId}`, facts.key);
    expect(session.status).toBe(200);
    expect(session.json.title).toBe('fixture session');
    const messages = session.json.messages as Array<{ role: string; content: string }>;
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: FIXTURE_ANSWER });
    const events = await sessionApi(gateway.base).follow({ ...facts }, '0');
    expect(events.map((e) => e.type)).toEqual([
      'message.created',
      'turn.started',
      'tool.called',
      'permission.decided',
      'tool.completed',
      'message.delta',
      'message.completed',
      'turn.completed',
    ]);
    expect(events.at(-2)).toMatchObject({ type: 'message.completed', content: FIXTURE_ANSWER });
  });

  it('shows the usage counted on the day it was stored', async () => {
    const usage = await api('GET', `/v1/me/usage?from=${facts.day}&to=${facts.day}`, facts.key);
    expect(usage.status).toBe(200);
    expect(usage.json.rows).toEqual([expect.objectContaining({ date: facts.day, model: 'tiny', generations: 2 })]);
  });

  it("serves the workspace's files", async () => {
    const readme = await api('GET', `/v1/workspaces/${facts.workspaceId}/files/README.md`, facts.key);
    expect(readme.status).toBe(200);
    expect(readme.text).toContain('Stored by Weft');
  });

  it('applies the stored permission rule to a new turn', async () => {
    expect((await api('GET', '/v1/permissions/user', facts.key)).json.rules).toEqual(FIXTURE_RULES);
    // A new session on the stored workspace: the scripted model's call ids restart at call_1, which the stored session has answered.
    const created = await api('POST', '/v1/sessions', facts.key, { workspaceId: facts.workspaceId, model: 'tiny' });
    const fixture = { ...facts, sessionId: String(created.json.id) };
    script(fixture.sessionId, [{ calls: [{ name: 'read_file', arguments: { path: 'secrets/token.txt' } }] }, { text: 'refused' }]);
    const { start, follow } = sessionApi(gateway.base);
    const started = await start(fixture, '/messages', { content: 'Read the secret' });
    const events = await follow(fixture, started.after);
    const decided = events.filter((e): e is Extract<StoredSessionEvent, { type: 'permission.decided' }> => e.type === 'permission.decided');
    expect(decided).toEqual([expect.objectContaining({ tool: 'read_file', decision: 'deny', decidedBy: 'policy', rule: 'Read(secrets/**)' })]);
    expect(events.at(-1)?.type).toBe('turn.completed');
  });
});
