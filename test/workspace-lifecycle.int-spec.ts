import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
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
import { tarGz } from '../apps/tools/src/testing/tar-fixtures';

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

beforeAll(async () => {
  gateway = await startGatewayUnderTest(HangingModelModule);
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
