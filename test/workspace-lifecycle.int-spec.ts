import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { loadConfig, toolsConfigSchema } from '@weft/config';
import { type GenerateChunk, Routes, type StoredSessionEvent } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { Observable } from 'rxjs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from '../apps/gateway/src/test/gateway-under-test';
import { sessionApi } from '../apps/gateway/src/test/session-api';
import { startToolsWorker } from '../apps/tools/src/bootstrap';
import { type FixtureEntry, tarGz } from '../apps/tools/src/testing/tar-fixtures';

/** A model that never finishes a reply, so a turn stays running until it is cancelled. */
@Controller()
class HangingModel {
  @MessagePattern(Routes.inferenceListModels.subject)
  listModels() {
    return { models: [{ id: 'tiny', provider: 'scripted', contextSize: 4096 }] };
  }

  @MessagePattern(Routes.inferenceGenerate.subject)
  generate(): Observable<GenerateChunk> {
    return new Observable<GenerateChunk>((subscriber) => subscriber.next({ type: 'delta', text: 'thinking' }));
  }
}

@Module({ controllers: [HangingModel] })
class HangingModelModule {}

/**
 * Naming, listing, renaming and deleting workspaces through the HTTP API, with the real tools
 * worker holding the files on disk (real NATS and Redis).
 */
let gateway: GatewayUnderTest;
let tools: INestMicroservice;
let dir: string;
let client: ReturnType<typeof sessionApi>;
const ended = (e: StoredSessionEvent) => e.type === 'turn.completed' || e.type === 'turn.failed' || e.type === 'turn.cancelled';

/** Small enough that a sync can cross it; the other tests stay far below. */
const QUOTA_BYTES = 100_000;
const IDLE_DAYS = 30;
const DAY_MS = 24 * 60 * 60_000;

beforeAll(async () => {
  gateway = await startGatewayUnderTest(HangingModelModule, {
    WORKSPACE_QUOTA_BYTES: String(QUOTA_BYTES),
    WORKSPACE_IDLE_DAYS: String(IDLE_DAYS),
    WORKSPACE_EXPIRY_INTERVAL_MS: '250',
  });
  dir = await mkdtemp(join(tmpdir(), 'weft-ws-lifecycle-'));
  tools = await startToolsWorker(loadConfig(toolsConfigSchema, { NATS_URL: gateway.natsUrl, WORKSPACES_DIR: dir, LOG_LEVEL: 'silent' }), createLogger('tools', 'silent'));
  client = sessionApi(gateway.base);
});

afterAll(async () => {
  await tools?.close();
  await gateway?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function newUser(name: string): Promise<string> {
  const user = await client.api('POST', '/v1/admin/users', TEST_ADMIN_TOKEN, { name });
  return String((await client.api('POST', `/v1/admin/users/${String(user.json.id)}/keys`, TEST_ADMIN_TOKEN)).json.key);
}

async function upload(key: string, name?: string): Promise<string> {
  const archive = tarGz([{ path: 'src/app.py', content: 'print("hello")\n' }, { path: 'README.md', content: '# app\n' }]);
  const response = await fetch(`${gateway.base}/v1/workspaces${name ? `?name=${encodeURIComponent(name)}` : ''}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/gzip' },
    body: archive,
  });
  expect(response.status).toBe(201);
  return String(((await response.json()) as { id: string }).id);
}

describe('workspace lifecycle', () => {
  it('names workspaces, lists them with size and last use, and renames them', async () => {
    const key = await newUser('ws-namer');
    const named = await upload(key, 'my-app');
    const unnamed = await upload(key);
    const empty = await client.api('POST', '/v1/workspaces', key, {});
    expect(empty).toMatchObject({ status: 201, json: { name: 'workspace' } });

    const listed = await client.api('GET', '/v1/workspaces', key);
    const byId = new Map((listed.json.workspaces as Array<{ id: string }>).map((w) => [w.id, w]));
    expect(byId.get(named)).toMatchObject({ name: 'my-app', files: 2, bytes: 21, createdAt: expect.any(String), lastUsedAt: expect.any(String) });
    expect(byId.get(unnamed)).toMatchObject({ name: 'upload' });

    const before = (await client.api('GET', `/v1/workspaces/${named}`, key)).json.lastUsedAt as string;
    await new Promise((r) => setTimeout(r, 5));
    await client.api('POST', '/v1/sessions', key, { workspaceId: named, model: 'tiny' });
    const after = (await client.api('GET', `/v1/workspaces/${named}`, key)).json.lastUsedAt as string;
    expect(Date.parse(after)).toBeGreaterThan(Date.parse(before));

    expect(await client.api('PATCH', `/v1/workspaces/${named}`, key, { name: 'my-app (old)' })).toMatchObject({ status: 200, json: { id: named, name: 'my-app (old)' } });
    expect(await client.api('PATCH', `/v1/workspaces/${named}`, key, { name: ' ' })).toMatchObject({ status: 400, json: { error: { message: expect.stringContaining('body.name') } } });
  });

  it('refuses to delete a workspace while a turn runs in it, then deletes its files and record', async () => {
    const key = await newUser('ws-deleter');
    const other = await newUser('ws-intruder');
    const workspaceId = await upload(key, 'doomed');
    expect(existsSync(join(dir, workspaceId))).toBe(true);
    const session = String((await client.api('POST', '/v1/sessions', key, { workspaceId, model: 'tiny' })).json.id);
    const before = String((await client.api('GET', `/v1/sessions/${session}`, key)).json.lastEventId);
    const turnId = String((await client.api('POST', `/v1/sessions/${session}/messages`, key, { content: 'go' })).json.turnId);

    const busy = await client.api('DELETE', `/v1/workspaces/${workspaceId}`, key);
    expect(busy).toMatchObject({ status: 409, json: { error: { code: 'COMMON.CONFLICT', message: expect.stringContaining(session) } } });
    expect(await client.api('DELETE', `/v1/workspaces/${workspaceId}`, other)).toMatchObject({ status: 404 });

    await client.api('POST', `/v1/sessions/${session}/turns/${turnId}/cancel`, key);
    await client.follow({ key, sessionId: session, userId: '', workspaceId }, before, ended);
    expect((await client.api('DELETE', `/v1/workspaces/${workspaceId}`, key)).status).toBe(204);
    expect(existsSync(join(dir, workspaceId))).toBe(false);
    expect(await client.api('GET', `/v1/workspaces/${workspaceId}`, key)).toMatchObject({ status: 404 });
    const listed = await client.api('GET', '/v1/workspaces', key);
    expect((listed.json.workspaces as Array<{ id: string }>).map((w) => w.id)).not.toContain(workspaceId);
    // The session and its history stay readable.
    expect((await client.api('GET', `/v1/sessions/${session}`, key)).status).toBe(200);
  });
});

describe('reading files of a workspace', () => {
  it('answers a path the filesystem cannot hold with 400 TOOLS.INVALID_PATH naming the problem', async () => {
    const key = await newUser('ws-reader');
    const workspaceId = await upload(key);
    const long = await client.api('GET', `/v1/workspaces/${workspaceId}/files/src/${'n'.repeat(300)}`, key);
    expect(long).toMatchObject({ status: 400, json: { error: { code: 'TOOLS.INVALID_PATH', details: { problem: 'name-too-long' } } } });
    expect(long.json.error?.message).toContain(`the name '${'n'.repeat(60)}… (300 characters)' is 300 bytes long; a file or folder name can be at most 255 bytes`);
    expect(long.json.error?.message).not.toContain(dir);
    const nul = await client.api('GET', `/v1/workspaces/${workspaceId}/files/src/app.py%00.png`, key);
    expect(nul).toMatchObject({ status: 400, json: { error: { code: 'TOOLS.INVALID_PATH', message: expect.stringContaining('NUL byte') } } });
    expect((await client.api('GET', `/v1/workspaces/${workspaceId}/files/src`, key)).status).toBe(200);
  });
});

describe('deleting a user', () => {
  it("removes what they owned (sessions, workspaces and their files, notes, rules, instructions, keys) and nothing of anyone else's", async () => {
    const admin = (method: string, path: string, body?: unknown) => client.api(method, path, TEST_ADMIN_TOKEN, body);
    const leaving = await client.api('POST', '/v1/admin/users', TEST_ADMIN_TOKEN, { name: 'Leaving Dev' });
    const leavingId = String(leaving.json.id);
    const key = String((await admin('POST', `/v1/admin/users/${leavingId}/keys`)).json.key);
    const staying = await newUser('staying-dev');
    const mine = await upload(key, 'mine');
    const theirs = await upload(staying, 'theirs');
    const session = String((await client.api('POST', '/v1/sessions', key, { workspaceId: mine, model: 'tiny' })).json.id);
    const theirSession = String((await client.api('POST', '/v1/sessions', staying, { workspaceId: theirs, model: 'tiny' })).json.id);
    expect((await client.api('POST', `/v1/workspaces/${mine}/notes`, key, { text: 'tests run with make test' })).status).toBe(201);
    expect((await client.api('PUT', '/v1/permissions/user', key, { allow: ['Bash(make test)'], ask: [], deny: [] })).status).toBe(200);
    expect((await client.api('PUT', `/v1/permissions/workspace/${mine}`, key, { allow: ['Bash(make)'], ask: [], deny: [] })).status).toBe(200);
    expect((await client.api('PUT', '/v1/me/instructions', key, { content: 'Answer in French.' })).status).toBe(200);

    const unconfirmed = await admin('DELETE', `/v1/admin/users/${leavingId}`, { confirm: 'leaving dev' });
    expect(unconfirmed).toMatchObject({ status: 400, json: { error: { message: expect.stringContaining('{"confirm": "Leaving Dev"}') } } });
    expect((await client.api('GET', '/v1/me', key)).status).toBe(200);

    const deleted = await admin('DELETE', `/v1/admin/users/${leavingId}`, { confirm: 'Leaving Dev' });
    expect(deleted).toMatchObject({ status: 200, json: { id: leavingId, sessions: 1, workspaces: 1, keys: 1 } });
    expect((await client.api('GET', '/v1/me', key)).status).toBe(401);
    expect(await admin('GET', `/v1/admin/users/${leavingId}`)).toMatchObject({ status: 404 });
    expect(existsSync(join(dir, mine))).toBe(false);

    const redis = new Redis(gateway.redisUrl);
    try {
      const left = (await redis.keys(`${gateway.redisKeyPrefix}*`)).filter((k) => [leavingId, mine, session].some((id) => k.includes(id)));
      expect(left).toEqual([]);
    } finally {
      redis.disconnect();
    }

    expect(existsSync(join(dir, theirs))).toBe(true);
    expect((await client.api('GET', `/v1/sessions/${theirSession}`, staying)).status).toBe(200);
    expect((await client.api('GET', `/v1/workspaces/${theirs}`, staying)).json).toMatchObject({ name: 'theirs', files: 2 });
    // The name is free again.
    expect((await admin('POST', '/v1/admin/users', { name: 'Leaving Dev' })).status).toBe(201);
  });
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function sync(key: string, workspaceId: string, entries: FixtureEntry[], deleted: string[] = []) {
  const body = { ...(entries.length > 0 ? { archiveBase64: tarGz(entries).toString('base64') } : {}), deleted };
  return client.api('POST', `/v1/workspaces/${workspaceId}/sync`, key, body);
}

async function manifestOf(key: string, workspaceId: string) {
  const answer = await client.api('GET', `/v1/workspaces/${workspaceId}/manifest`, key);
  expect(answer.status, answer.text).toBe(200);
  return answer.json.entries as Array<{ path: string; type: string; sha256?: string }>;
}

async function fileText(key: string, workspaceId: string, path: string): Promise<string | number> {
  const response = await fetch(`${gateway.base}/v1/workspaces/${workspaceId}/files/${path}`, { headers: { authorization: `Bearer ${key}` } });
  return response.ok ? response.text() : response.status;
}

/** A session with a turn that runs until it is cancelled. */
async function runningTurn(key: string, workspaceId: string) {
  const sessionId = String((await client.api('POST', '/v1/sessions', key, { workspaceId, model: 'tiny' })).json.id);
  const before = String((await client.api('GET', `/v1/sessions/${sessionId}`, key)).json.lastEventId);
  const turnId = String((await client.api('POST', `/v1/sessions/${sessionId}/messages`, key, { content: 'go' })).json.turnId);
  return {
    sessionId,
    cancel: async () => {
      await client.api('POST', `/v1/sessions/${sessionId}/turns/${turnId}/cancel`, key);
      await client.follow({ key, sessionId, userId: '', workspaceId }, before, ended);
    },
  };
}

async function withRedis<T>(work: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(gateway.redisUrl);
  try {
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}

/** As if no session had used the workspace since `daysAgo` days. */
async function lastUsed(workspaceId: string, daysAgo: number): Promise<void> {
  await withRedis((redis) => redis.hset(`${gateway.redisKeyPrefix}workspace:${workspaceId}`, 'lastUsedAt', new Date(Date.now() - daysAgo * DAY_MS).toISOString()));
}

describe('syncing a workspace with the folder it came from', () => {
  it('lists what the workspace holds and writes changed and new files, removes gone ones, and leaves the rest', async () => {
    const key = await newUser('ws-syncer');
    const workspaceId = await upload(key, 'app');
    const before = await manifestOf(key, workspaceId);
    expect(before).toEqual([
      { path: 'README.md', type: 'file', size: 6, sha256: sha256('# app\n'), executable: false },
      { path: 'src', type: 'directory' },
      { path: 'src/app.py', type: 'file', size: 15, sha256: sha256('print("hello")\n'), executable: false },
    ]);
    const lastUsedBefore = String((await client.api('GET', `/v1/workspaces/${workspaceId}`, key)).json.lastUsedAt);

    const synced = await sync(key, workspaceId, [{ path: 'src/app.py', content: 'print("hello, world")\n' }, { path: 'src/util.py', content: 'x = 1\n' }], ['README.md']);
    expect(synced).toMatchObject({ status: 200, json: { written: 2, deleted: 1, overwritten: [], files: 2 } });
    expect(await fileText(key, workspaceId, 'src/app.py')).toBe('print("hello, world")\n');
    expect(await fileText(key, workspaceId, 'src/util.py')).toBe('x = 1\n');
    expect(await fileText(key, workspaceId, 'README.md')).toBe(404);
    expect((await manifestOf(key, workspaceId)).map((e) => e.path)).toEqual(['src', 'src/app.py', 'src/util.py']);
    // The export patch starts again from what the folder sent.
    expect((await client.api('GET', `/v1/workspaces/${workspaceId}/patch`, key)).text).toBe('');
    expect(Date.parse(String((await client.api('GET', `/v1/workspaces/${workspaceId}`, key)).json.lastUsedAt))).toBeGreaterThanOrEqual(Date.parse(lastUsedBefore));

    const other = await newUser('ws-sync-stranger');
    expect((await client.api('GET', `/v1/workspaces/${workspaceId}/manifest`, other)).status).toBe(404);
    expect((await sync(other, workspaceId, [{ path: 'x', content: 'x' }])).status).toBe(404);
  });

  it("says which of the workspace's own changes the folder's version replaced", async () => {
    const key = await newUser('ws-sync-agent');
    const workspaceId = await upload(key, 'app');
    // What an agent would have written and nobody applied to the folder.
    await writeFile(join(dir, workspaceId, 'src/app.py'), 'print("the agent was here")\n');
    const synced = await sync(key, workspaceId, [{ path: 'src/app.py', content: 'print("hello")  # edited by hand\n' }]);
    expect(synced).toMatchObject({ status: 200, json: { written: 1, overwritten: ['src/app.py'] } });
    expect(await readFile(join(dir, workspaceId, 'src/app.py'), 'utf8')).toBe('print("hello")  # edited by hand\n');
  });

  it('refuses a bad archive or a bad path with 400 and changes nothing', async () => {
    const key = await newUser('ws-sync-attacker');
    const workspaceId = await upload(key, 'app');
    const before = await manifestOf(key, workspaceId);
    const slip = await sync(key, workspaceId, [{ path: 'src/app.py', content: 'changed' }, { path: '../../escape.txt', content: 'x' }], ['README.md']);
    expect(slip).toMatchObject({ status: 400, json: { error: { code: 'TOOLS.ARCHIVE_REJECTED', message: expect.stringContaining('escape.txt') } } });
    const outside = await sync(key, workspaceId, [{ path: 'src/app.py', content: 'changed' }, { path: 'etc', type: 'SymbolicLink', linkpath: '/etc' }]);
    expect(outside).toMatchObject({ status: 400, json: { error: { code: 'TOOLS.ARCHIVE_REJECTED' } } });
    const notGzip = await client.api('POST', `/v1/workspaces/${workspaceId}/sync`, key, { archiveBase64: Buffer.from('not a tarball').toString('base64'), deleted: ['README.md'] });
    expect(notGzip).toMatchObject({ status: 400, json: { error: { code: 'TOOLS.ARCHIVE_REJECTED' } } });
    expect(await sync(key, workspaceId, [], ['../outside'])).toMatchObject({ status: 400, json: { error: { code: expect.stringMatching(/^TOOLS\./) } } });
    expect(await sync(key, workspaceId, [], ['.weft/settings.json'])).toMatchObject({ status: 400, json: { error: { code: 'TOOLS.INVALID_PATH' } } });
    expect(await client.api('POST', `/v1/workspaces/${workspaceId}/sync`, key, { deleted: 'README.md' })).toMatchObject({ status: 400 });
    expect(await manifestOf(key, workspaceId)).toEqual(before);
  });

  it('holds a sync to the workspace quota: 413, and nothing changed', async () => {
    const key = await newUser('ws-sync-hoarder');
    const workspaceId = await upload(key, 'app');
    const before = await manifestOf(key, workspaceId);
    const big = await sync(key, workspaceId, [{ path: 'data.bin', content: 'x'.repeat(QUOTA_BYTES) }], ['README.md']);
    expect(big).toMatchObject({ status: 413, json: { error: { code: 'COMMON.PAYLOAD_TOO_LARGE', message: expect.stringContaining('nothing was changed') } } });
    expect(await manifestOf(key, workspaceId)).toEqual(before);
    expect(await sync(key, workspaceId, [{ path: 'data.bin', content: 'x'.repeat(QUOTA_BYTES / 2) }])).toMatchObject({ status: 200 });
  });

  it('refuses to sync while a turn runs in the workspace (409), and syncs once it ended', async () => {
    const key = await newUser('ws-sync-busy');
    const workspaceId = await upload(key, 'app');
    const turn = await runningTurn(key, workspaceId);
    const busy = await sync(key, workspaceId, [{ path: 'src/app.py', content: 'changed' }]);
    expect(busy).toMatchObject({ status: 409, json: { error: { code: 'COMMON.CONFLICT', message: expect.stringContaining(turn.sessionId) } } });
    expect(await fileText(key, workspaceId, 'src/app.py')).toBe('print("hello")\n');
    await turn.cancel();
    expect((await sync(key, workspaceId, [{ path: 'src/app.py', content: 'changed' }])).status).toBe(200);
  });

  it('refuses a sync and a delete while another operation holds the workspace', async () => {
    const key = await newUser('ws-sync-locked');
    const workspaceId = await upload(key, 'app');
    const lock = `${gateway.redisKeyPrefix}workspace:${workspaceId}:lock`;
    await withRedis((redis) => redis.set(lock, 'sync:someone-else', 'PX', 60_000));
    try {
      expect(await sync(key, workspaceId, [{ path: 'a', content: 'a' }])).toMatchObject({ status: 409, json: { error: { message: expect.stringContaining('sync in progress') } } });
      expect((await client.api('DELETE', `/v1/workspaces/${workspaceId}`, key)).status).toBe(409);
    } finally {
      await withRedis((redis) => redis.del(lock));
    }
    expect((await client.api('DELETE', `/v1/workspaces/${workspaceId}`, key)).status).toBe(204);
  });
});

describe('expiring idle workspaces', () => {
  const admin = (body: unknown) => client.api('POST', '/v1/admin/workspaces/expire', TEST_ADMIN_TOKEN, body);
  const ids = (list: unknown) => (list as Array<{ id: string }>).map((w) => w.id);

  it('previews, then deletes as DELETE does, only the workspaces idle that long with no turn running', async () => {
    const key = await newUser('ws-idler');
    const [idle, fresh, busy, locked] = [await upload(key, 'idle'), await upload(key, 'fresh'), await upload(key, 'busy'), await upload(key, 'locked')];
    expect((await client.api('POST', `/v1/workspaces/${idle}/notes`, key, { text: 'build with make' })).status).toBe(201);
    const turn = await runningTurn(key, busy);
    // Idle for 25 days: past the 20 asked for here, not the server's 30 (its own sweep leaves them).
    for (const id of [idle, busy, locked]) await lastUsed(id, 25);
    const lock = `${gateway.redisKeyPrefix}workspace:${locked}:lock`;
    await withRedis((redis) => redis.set(lock, 'sync:someone-else', 'PX', 60_000));
    try {
      const preview = await admin({ idleDays: 20, dryRun: true });
      expect(preview).toMatchObject({ status: 200, json: { idleDays: 20, dryRun: true } });
      expect(ids(preview.json.expired)).toEqual(expect.arrayContaining([idle, locked]));
      expect(ids(preview.json.expired)).not.toContain(fresh);
      expect(preview.json.skipped).toEqual(expect.arrayContaining([expect.objectContaining({ id: busy, reason: 'in use' })]));
      expect(existsSync(join(dir, idle))).toBe(true);

      const run = await admin({ idleDays: 20 });
      expect(ids(run.json.expired)).toContain(idle);
      expect(ids(run.json.expired)).not.toContain(fresh);
      expect(run.json.skipped).toEqual(expect.arrayContaining([expect.objectContaining({ id: busy, reason: 'in use' }), expect.objectContaining({ id: locked, reason: 'busy' })]));
    } finally {
      await withRedis((redis) => redis.del(lock));
    }
    expect(existsSync(join(dir, idle))).toBe(false);
    expect(await client.api('GET', `/v1/workspaces/${idle}`, key)).toMatchObject({ status: 404 });
    const left = await withRedis((redis) => redis.keys(`${gateway.redisKeyPrefix}workspace:${idle}*`));
    expect(left).toEqual([]);
    for (const kept of [fresh, busy, locked]) expect((await client.api('GET', `/v1/workspaces/${kept}`, key)).status).toBe(200);
    const audit = await client.api('GET', '/v1/admin/audit?limit=5', TEST_ADMIN_TOKEN);
    expect(audit.json.entries).toEqual(expect.arrayContaining([expect.objectContaining({ action: 'workspaces.expired' })]));
    await turn.cancel();
  });

  it('is swept by the gateway on its own once WORKSPACE_IDLE_DAYS have passed', async () => {
    const key = await newUser('ws-forgotten');
    const [old, recent] = [await upload(key, 'old'), await upload(key, 'recent')];
    await lastUsed(old, IDLE_DAYS + 1);
    await lastUsed(recent, IDLE_DAYS - 1);
    await expect.poll(async () => (await client.api('GET', `/v1/workspaces/${old}`, key)).status, { timeout: 15_000, interval: 100 }).toBe(404);
    expect(existsSync(join(dir, old))).toBe(false);
    expect((await client.api('GET', `/v1/workspaces/${recent}`, key)).status).toBe(200);
  });

  it('refuses a sweep of 0 days, and one asked for with a user key', async () => {
    expect(await admin({ idleDays: 0 })).toMatchObject({ status: 400 });
    const key = await newUser('ws-not-admin');
    expect((await client.api('POST', '/v1/admin/workspaces/expire', key, {})).status).toBeGreaterThanOrEqual(401);
  });
});
