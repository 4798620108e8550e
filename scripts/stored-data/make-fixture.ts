/**
 * Writes test/fixtures/stored-data/v<STORAGE_VERSION>/: what a real gateway stores for a user with
 * keys, a workspace, a session with a finished turn, a permission rule and usage. Run it once per
 * new stored format (docs/backup.md), never to "fix" an old fixture: old fixtures are the promise.
 *
 *   npx vite-node --config bench/vite.config.ts scripts/stored-data/make-fixture.ts
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig, toolsConfigSchema } from '@weft/config';
import { createLogger } from '@weft/logging';
import { Redis } from 'ioredis';
import { startGatewayUnderTest, TEST_ADMIN_TOKEN } from '../../apps/gateway/src/test/gateway-under-test';
import { ScriptedModelModule, script } from '../../apps/gateway/src/test/scripted-workers';
import { readEvents } from '../../apps/gateway/src/test/sse-client';
import { exportRedis } from '../../apps/gateway/src/storage/redis-exporter';
import { toJsonl } from '../../apps/gateway/src/storage/redis-jsonl';
import { STORAGE_VERSION } from '../../apps/gateway/src/storage/migrations';
import { startToolsWorker } from '../../apps/tools/src/bootstrap';
import { tarGz } from '../../apps/tools/src/testing/tar-fixtures';
import { FIXTURE_ANSWER, FIXTURE_FILES, FIXTURE_RULES, type FixtureFacts } from './fixture-facts';

async function main(): Promise<void> {
  const out = resolve(__dirname, `../../test/fixtures/stored-data/v${STORAGE_VERSION}`);
  const gateway = await startGatewayUnderTest(ScriptedModelModule);
  const workspaces = await mkdtemp(join(tmpdir(), 'weft-fixture-ws-'));
  const tools = await startToolsWorker(loadConfig(toolsConfigSchema, { NATS_URL: gateway.natsUrl, WORKSPACES_DIR: workspaces, LOG_LEVEL: 'silent' }), createLogger('tools', 'silent'));
  try {
    const call = async (method: string, path: string, token: string, body?: unknown, contentType = 'application/json') => {
      const response = await fetch(`${gateway.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
        body: body === undefined ? undefined : Buffer.isBuffer(body) ? new Uint8Array(body) : JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return response.status === 204 ? {} : ((await response.json()) as Record<string, unknown>);
    };
    const user = await call('POST', '/v1/admin/users', TEST_ADMIN_TOKEN, { name: 'ada', role: 'admin' });
    const userId = String(user.id);
    const key = String((await call('POST', `/v1/admin/users/${userId}/keys`, TEST_ADMIN_TOKEN, { name: 'laptop' })).key);
    await call('POST', `/v1/admin/users/${userId}/keys`, TEST_ADMIN_TOKEN, { name: 'ci', expiresAt: '2099-01-01T00:00:00Z' });
    const archive = tarGz(Object.entries(FIXTURE_FILES).map(([path, content]) => ({ path, content })));
    const workspaceId = String((await call('POST', '/v1/workspaces?name=fixture', key, archive, 'application/gzip')).id);
    await call('PUT', '/v1/permissions/user', key, FIXTURE_RULES);
    const sessionId = String((await call('POST', '/v1/sessions', key, { workspaceId, model: 'tiny' })).id);
    await call('PATCH', `/v1/sessions/${sessionId}`, key, { title: 'fixture session' });
    script(sessionId, [{ calls: [{ name: 'read_file', arguments: { path: 'README.md' } }] }, { text: FIXTURE_ANSWER }]);
    await call('POST', `/v1/sessions/${sessionId}/messages`, key, { content: 'What does the README say?' });
    await readEvents(`${gateway.base}/v1/sessions/${sessionId}/events?after=0`, { authorization: `Bearer ${key}` }, (e) => e.type === 'turn.completed' || e.type === 'turn.failed');

    const redis = new Redis(gateway.redisUrl);
    const { header, records } = await exportRedis(redis, gateway.redisKeyPrefix);
    redis.disconnect();
    const facts: FixtureFacts = { storageVersion: STORAGE_VERSION, key, userId, workspaceId, sessionId, day: new Date().toISOString().slice(0, 10) };
    await rm(out, { recursive: true, force: true });
    await mkdir(out, { recursive: true });
    await writeFile(join(out, 'redis.jsonl'), toJsonl(header, records));
    await writeFile(join(out, 'facts.json'), `${JSON.stringify(facts, null, 2)}\n`);
    await cp(workspaces, join(out, 'workspaces'), { recursive: true });
    console.log(`wrote ${records.length} keys and workspace ${workspaceId} to ${out}`);
  } finally {
    await tools.close();
    await gateway.stop();
    await rm(workspaces, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
