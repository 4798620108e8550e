import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import { loadConfig, toolsConfigSchema } from '@weft/config';
import { createLogger } from '@weft/logging';
import { Redis } from 'ioredis';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, weft } from '../apps/cli/src/testing/built-cli';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from '../apps/gateway/src/test/gateway-under-test';
import { ScriptedModelModule } from '../apps/gateway/src/test/scripted-workers';
import { sessionApi } from '../apps/gateway/src/test/session-api';
import { STORAGE_VERSION } from '../apps/gateway/src/storage/migrations';
import { exportRedis } from '../apps/gateway/src/storage/redis-exporter';
import type { RedisRecord } from '../apps/gateway/src/storage/redis-records';
import { startToolsWorker } from '../apps/tools/src/bootstrap';
import { FIXTURE_ANSWER, FIXTURE_RULES, type FixtureFacts } from '../scripts/stored-data/fixture-facts';
import { type StartedService, startRedis } from './support/containers';
import { loadStoredData, storedDataFixture } from './support/stored-data';

interface Stack {
  gateway: GatewayUnderTest;
  tools: INestMicroservice;
  workspaces: string;
  redis: Redis;
}

async function stackOn(env: Record<string, string>, workspaces: string): Promise<Stack> {
  const gateway = await startGatewayUnderTest(ScriptedModelModule, env);
  const tools = await startToolsWorker(loadConfig(toolsConfigSchema, { NATS_URL: gateway.natsUrl, WORKSPACES_DIR: workspaces, LOG_LEVEL: 'silent' }), createLogger('tools', 'silent'));
  return { gateway, tools, workspaces, redis: new Redis(gateway.redisUrl) };
}

async function stopStack(stack: Stack | undefined): Promise<void> {
  if (!stack) return;
  stack.redis.disconnect();
  await stack.tools.close();
  await stack.gateway.stop();
  await rm(stack.workspaces, { recursive: true, force: true });
}

const withoutTtl = (records: RedisRecord[]) => records.map(({ ttlMs: _ttl, ...rest }) => rest);

/**
 * `weft admin backup` of a gateway holding data (the v1 stored-data fixture, on its own Redis and
 * workspaces), `weft admin restore` into a second gateway on a fresh Redis and an empty workspaces
 * folder: every key comes back, and the user finds everything through the API.
 */
describe('backup and restore into a fresh stack', () => {
  let sourceRedis: StartedService;
  let source: Stack;
  let target: Stack;
  let facts: FixtureFacts;
  let dir: string;
  let backupFile: string;
  /** A Weft checkout's configuration, as `npm run setup` leaves it beside docker-compose.yml. */
  let checkout: string;
  const hostConfig: Record<string, string> = {
    '.env': 'WEFT_ADMIN_TOKEN=restored-admin-token\nWEFT_NATS_PASSWORD=restored-nats\n',
    'config/models.json': '{ "models": [] }\n',
    'config/scripts/demo.json': '{ "turns": [] }\n',
  };
  const sourcePrefix = `backup-src-${randomBytes(4).toString('hex')}:`;
  const admin = (stack: Stack, ...args: string[]) => weft(['admin', ...args], { HOME: dir, XDG_CONFIG_HOME: dir, WEFT_URL: stack.gateway.base, WEFT_ADMIN_TOKEN: TEST_ADMIN_TOKEN });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-backup-test-'));
    backupFile = join(dir, 'weft.tar.gz');
    checkout = join(dir, 'checkout');
    await writeFiles(checkout, { 'docker-compose.yml': 'services: {}\n', ...hostConfig });
    sourceRedis = await startRedis();
    const loader = new Redis(sourceRedis.url);
    const sourceWorkspaces = await mkdtemp(join(tmpdir(), 'weft-backup-src-'));
    facts = await loadStoredData(storedDataFixture(1), loader, sourcePrefix, sourceWorkspaces);
    loader.disconnect();
    const [src, dst] = await Promise.all([
      stackOn({ REDIS_URL: sourceRedis.url, REDIS_KEY_PREFIX: sourcePrefix }, sourceWorkspaces),
      mkdtemp(join(tmpdir(), 'weft-backup-dst-')).then((workspaces) => stackOn({}, workspaces)),
      buildCli(),
    ]);
    [source, target] = [src, dst];
  });

  afterAll(async () => {
    await stopStack(source);
    await stopStack(target);
    await sourceRedis?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('backs up with the CLI and restores every key into the fresh store', async () => {
    const backedUp = await admin(source, 'backup', '--config-dir', checkout, backupFile);
    expect(backedUp.code, backedUp.stderr).toBe(0);
    expect(backedUp.stderr).toContain('host configuration included');
    // It holds the host's secrets: readable by its owner only.
    expect((await stat(backupFile)).mode & 0o777).toBe(0o600);
    const restored = await admin(target, 'restore', backupFile);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stderr).toContain('weft admin restore-config');
    expect(JSON.parse(restored.stdout)).toMatchObject({ workspaces: 1, failedWorkspaces: [], migratedFrom: 1, storageVersion: STORAGE_VERSION });

    const before = await exportRedis(source.redis, source.gateway.redisKeyPrefix);
    const after = await exportRedis(target.redis, target.gateway.redisKeyPrefix);
    // Rate counters move with every request; everything else is as it was.
    const kept = (records: RedisRecord[]) => withoutTtl(records.filter((r) => !r.key.startsWith('rate:')));
    expect(kept(after.records)).toEqual(expect.arrayContaining(kept(before.records)));
  });

  it('lets the user in with their key and finds the session, its events, rules, usage and files', async () => {
    const { api, follow } = sessionApi(target.gateway.base);
    expect((await api('GET', '/v1/me', facts.key)).json).toMatchObject({ id: facts.userId, name: 'ada' });
    const session = await api('GET', `/v1/sessions/${facts.sessionId}`, facts.key);
    expect((session.json.messages as Array<{ content: string }>).at(-1)?.content).toBe(FIXTURE_ANSWER);
    const events = await follow({ ...facts }, '0');
    expect(events.at(-1)?.type).toBe('turn.completed');
    expect((await api('GET', '/v1/permissions/user', facts.key)).json.rules).toEqual(FIXTURE_RULES);
    const usage = await api('GET', `/v1/me/usage?from=${facts.day}&to=${facts.day}`, facts.key);
    expect(usage.json.rows).toEqual([expect.objectContaining({ model: 'tiny', generations: 2 })]);
    const readme = await api('GET', `/v1/workspaces/${facts.workspaceId}/files/README.md`, facts.key);
    expect(readme.text).toContain('Stored by Weft');
  });

  it('carries the host configuration: restore-config writes it into a new checkout, and replaces differing files only with --force', async () => {
    const entries: string[] = [];
    await tar.t({ file: backupFile, onReadEntry: (entry) => entries.push(entry.path) });
    expect(entries).toEqual(expect.arrayContaining(Object.keys(hostConfig).map((path) => `host-config/${path}`)));

    const newHost = join(dir, 'new-host');
    await mkdir(newHost);
    const restored = await weft(['admin', 'restore-config', backupFile, '--dir', newHost], { HOME: dir });
    expect(restored.code, restored.stderr).toBe(0);
    for (const [path, content] of Object.entries(hostConfig)) expect(await readFile(join(newHost, path), 'utf8')).toBe(content);

    await writeFile(join(newHost, '.env'), 'WEFT_ADMIN_TOKEN=set-up-here\n');
    const refused = await weft(['admin', 'restore-config', backupFile, '--dir', newHost], { HOME: dir });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('.env');
    expect(refused.stderr).toContain('--force');
    expect(await readFile(join(newHost, '.env'), 'utf8')).toBe('WEFT_ADMIN_TOKEN=set-up-here\n');

    const forced = await weft(['admin', 'restore-config', backupFile, '--dir', newHost, '--force'], { HOME: dir });
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(join(newHost, '.env'), 'utf8')).toBe(hostConfig['.env']);
    expect(await readFile(join(newHost, '.env.before-restore'), 'utf8')).toBe('WEFT_ADMIN_TOKEN=set-up-here\n');
  });

  it('refuses to restore over a store that has users unless forced', async () => {
    const refused = await admin(target, 'restore', backupFile);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('already has 1 users');
    const forced = await admin(target, 'restore', '--force', backupFile);
    expect(forced.code, forced.stderr).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ keys: 26, workspaces: 1, failedWorkspaces: [] });
    expect((await sessionApi(target.gateway.base).api('GET', `/v1/workspaces/${facts.workspaceId}/files/README.md`, facts.key)).status).toBe(200);
  });

  it('refuses a backup of a newer stored format than the gateway knows, and changes nothing', async () => {
    const newer = await mkdtemp(join(dir, 'newer-'));
    const manifest = { format: 'weft-backup', formatVersion: 1, storageVersion: STORAGE_VERSION + 1, createdAt: '', redisWindow: { startedAt: '', finishedAt: '' }, keys: 0, workspaces: [], missingWorkspaces: [] };
    await writeFile(join(newer, 'weft-backup.json'), JSON.stringify(manifest));
    const archive = join(dir, 'newer.tar.gz');
    await tar.c({ gzip: true, cwd: newer, file: archive }, ['weft-backup.json']);
    const refused = await admin(target, 'restore', '--force', archive);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`The backup holds stored format version ${STORAGE_VERSION + 1}`);
    expect((await sessionApi(target.gateway.base).api('GET', '/v1/me', facts.key)).status).toBe(200);
  });
});

async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), content);
  }
}
