import { Queues, type StoredSessionEvent } from '@weft/contracts';
import { Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, startGatewayProcess } from './test/gateway-process';
import { PROCESS_ADMIN_TOKEN, type ProcessWorld, processApi, startProcessWorld } from './test/process-world';
import { script, scriptedWorld } from './test/scripted-workers';
import { readEvents } from './test/sse-client';

/**
 * Slots are for work, not for waiting: with one agent slot per gateway, a turn waiting for a
 * person's permission answer is parked (its BullMQ job set aside in Redis) and another user's
 * turn runs meanwhile; the answer wakes it, on whichever gateway is alive. And the turn queue is
 * fair: a user's first turn goes ahead of another user's fourth. Real gateway processes on real
 * Redis, NATS and BullMQ; inference, tools and sandbox are scripted stand-ins in this process.
 */
const ADMIN_TOKEN = PROCESS_ADMIN_TOKEN;
const api = processApi;

let world: ProcessWorld;
let redis: ProcessWorld['redis'];
let env: Record<string, string>;
const gateways: GatewayProcess[] = [];

beforeAll(async () => {
  world = await startProcessWorld('park', {
    // One slot: a turn that held it while waiting would stop every other turn.
    AGENT_CONCURRENCY: '1',
    PERMISSION_PARK_AFTER_MS: '0',
    PERMISSION_TIMEOUT_MS: '60000',
    PERMISSIONS_SERVER_RULES: JSON.stringify({ allow: ['Bash(make:*)'] }),
  });
  ({ redis, env } = world);
});

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.kill()));
  await world?.stop();
});

/** Kills the gateways of earlier tests first: they share the queue, and each would add a slot. */
async function startGateway(extra: Record<string, string> = {}): Promise<GatewayProcess> {
  await Promise.all(gateways.splice(0).map((g) => g.kill()));
  const gateway = await startGatewayProcess({ ...env, ...extra });
  gateways.push(gateway);
  return gateway;
}


async function userWithKey(base: string, name: string): Promise<string> {
  const userId = String((await api(base, 'POST', '/v1/admin/users', ADMIN_TOKEN, { name })).json.id);
  return String((await api(base, 'POST', `/v1/admin/users/${userId}/keys`, ADMIN_TOKEN)).json.key);
}

async function newSession(base: string, key: string): Promise<string> {
  const workspaceId = String((await api(base, 'POST', '/v1/workspaces', key, {})).json.id);
  return String((await api(base, 'POST', '/v1/sessions', key, { workspaceId, model: 'tiny' })).json.id);
}

async function post(base: string, key: string, sessionId: string, content: string): Promise<string> {
  const posted = await api(base, 'POST', `/v1/sessions/${sessionId}/messages`, key, { content });
  expect(posted.status).toBe(202);
  return String(posted.json.turnId);
}

/** The session's log from the start until `until` matches. */
function eventsUntil(base: string, key: string, sessionId: string, until: (e: StoredSessionEvent) => boolean) {
  return readEvents(`${base}/v1/sessions/${sessionId}/events?after=0-0`, { authorization: `Bearer ${key}` }, until);
}

const turnEnd = (e: StoredSessionEvent) => e.type === 'turn.completed' || e.type === 'turn.failed' || e.type === 'turn.cancelled';

/** Posts a message whose first step asks permission for `deploy`, and waits for the question. */
async function askedTurn(base: string, key: string, sessionId: string) {
  script(sessionId, [{ calls: [{ name: 'run_command', arguments: { command: 'deploy --now' } }] }, { text: 'Deployed.' }]);
  const turnId = await post(base, key, sessionId, 'deploy it');
  const events = await eventsUntil(base, key, sessionId, (e) => e.type === 'permission.requested');
  const asked = events.at(-1);
  if (asked?.type !== 'permission.requested') throw new Error('no permission question');
  return { turnId, requestId: asked.requestId };
}

/** Until the turn's job is in BullMQ's delayed set: parked, held by no gateway. */
async function parkedInRedis(turnId: string): Promise<void> {
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue(Queues.agentTurns, { connection, prefix: `${env.REDIS_KEY_PREFIX}bull` });
  try {
    for (let tries = 0; tries < 100; tries++) {
      if (await (await Job.fromId(queue, turnId))?.isDelayed()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`turn ${turnId} was not parked`);
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

const deploysRun = () => scriptedWorld.execs.filter((e) => e.mode === 'command' && e.command === 'deploy --now').length;

/** The session's turn completes with a plain reply while the other turn still waits. */
async function runsMeanwhile(base: string, key: string, sessionId: string) {
  script(sessionId, [{ text: 'Hello there.' }]);
  await post(base, key, sessionId, 'hello');
  const events = await eventsUntil(base, key, sessionId, turnEnd);
  expect(events.at(-1)?.type).toBe('turn.completed');
}

describe('a turn waiting for a permission answer', () => {
  it('holds no slot: another user\'s turn runs meanwhile, and the answer resumes it with each event once', async () => {
    const gateway = await startGateway();
    const ada = await userWithKey(gateway.url, 'ada');
    const bo = await userWithKey(gateway.url, 'bo');
    const waiting = await newSession(gateway.url, ada);
    const { turnId, requestId } = await askedTurn(gateway.url, ada, waiting);

    await runsMeanwhile(gateway.url, bo, await newSession(gateway.url, bo));
    const before = deploysRun();
    const answered = await api(gateway.url, 'POST', `/v1/sessions/${waiting}/permissions/${requestId}`, ada, { decision: 'allow_once' });
    expect(answered.status).toBe(200);

    const events = (await eventsUntil(gateway.url, ada, waiting, turnEnd)).filter((e) => 'turnId' in e && e.turnId === turnId);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed', turnId });
    expect(events.map((e) => e.type)).toEqual([
      'message.created',
      'turn.started',
      'tool.called',
      'permission.requested',
      'permission.decided',
      'tool.completed',
      'message.delta',
      'message.completed',
      'turn.completed',
    ]);
    expect(events.find((e) => e.type === 'permission.decided')).toMatchObject({ decision: 'allow', decidedBy: 'user' });
    expect(deploysRun() - before).toBe(1);
    const session = await api(gateway.url, 'GET', `/v1/sessions/${waiting}`, ada);
    expect(session.json.activeTurnId).toBeNull();
  });

  it('is resumed by another gateway after the one that parked it was killed', async () => {
    const first = await startGateway();
    const cy = await userWithKey(first.url, 'cy');
    const sessionId = await newSession(first.url, cy);
    const { turnId, requestId } = await askedTurn(first.url, cy, sessionId);
    await parkedInRedis(turnId);

    const second = await startGateway();
    const before = deploysRun();
    const answered = await api(second.url, 'POST', `/v1/sessions/${sessionId}/permissions/${requestId}`, cy, { decision: 'allow_once' });
    expect(answered.status).toBe(200);
    const events = await eventsUntil(second.url, cy, sessionId, turnEnd);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed', turnId });
    expect(events.filter((e) => e.type === 'turn.started')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'tool.called')).toHaveLength(1);
    expect(deploysRun() - before).toBe(1);
  });

  it('ends cancelled when cancelled while parked, its question closed', async () => {
    const gateway = await startGateway();
    const di = await userWithKey(gateway.url, 'di');
    const sessionId = await newSession(gateway.url, di);
    const { turnId } = await askedTurn(gateway.url, di, sessionId);

    const cancelled = await api(gateway.url, 'POST', `/v1/sessions/${sessionId}/turns/${turnId}/cancel`, di);
    expect(cancelled.status).toBe(202);
    const events = await eventsUntil(gateway.url, di, sessionId, turnEnd);
    expect(events.at(-1)).toMatchObject({ type: 'turn.cancelled', turnId });
    expect(events.find((e) => e.type === 'permission.decided')).toMatchObject({ decision: 'deny', decidedBy: 'cancel' });
    expect((await api(gateway.url, 'GET', `/v1/sessions/${sessionId}/permissions`, di)).json.requests).toEqual([]);
  });

  it('wakes when its question times out, and the model hears nobody answered', async () => {
    const gateway = await startGateway({ PERMISSION_TIMEOUT_MS: '1500' });
    const ed = await userWithKey(gateway.url, 'ed');
    const sessionId = await newSession(gateway.url, ed);
    const { turnId } = await askedTurn(gateway.url, ed, sessionId);
    const before = deploysRun();

    const events = await eventsUntil(gateway.url, ed, sessionId, turnEnd);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed', turnId });
    expect(events.find((e) => e.type === 'permission.decided')).toMatchObject({ decision: 'deny', decidedBy: 'timeout' });
    expect(events.find((e) => e.type === 'tool.completed')).toMatchObject({ isError: true });
    expect(deploysRun()).toBe(before);
  });
});

describe('the turn queue', () => {
  it('serves a user with one turn before another user\'s queued turns (fair order, not arrival order)', async () => {
    const gateway = await startGateway();
    const fay = await userWithKey(gateway.url, 'fay');
    const gus = await userWithKey(gateway.url, 'gus');
    const fays = await Promise.all([1, 2, 3, 4].map(() => newSession(gateway.url, fay)));
    const gusSession = await newSession(gateway.url, gus);

    // Fay's first turn holds the only slot until released.
    let release!: () => void;
    scriptedWorld.execGates.set('make hold', new Promise<void>((r) => (release = r)));
    const holding = new Promise<void>((r) => scriptedWorld.execStarted.set('make hold', r));
    script(fays[0] as string, [{ calls: [{ name: 'run_command', arguments: { command: 'make hold' } }] }, { text: 'Held.' }]);
    await post(gateway.url, fay, fays[0] as string, 'hold the slot');
    await holding;

    // Fay queues three more, then Gus one: he has one running turn, she has four.
    for (const sessionId of [...fays.slice(1), gusSession]) script(sessionId, [{ text: 'Done.' }]);
    for (const sessionId of fays.slice(1)) await post(gateway.url, fay, sessionId, 'queued');
    await post(gateway.url, gus, gusSession, 'mine');
    const firstGeneration = scriptedWorld.generateRequests.length;
    release();

    const all = [...fays, gusSession];
    await Promise.all(all.map((sessionId, i) => eventsUntil(gateway.url, i < 4 ? fay : gus, sessionId, turnEnd)));
    const order = scriptedWorld.generateRequests
      .slice(firstGeneration)
      .map((r) => r.sessionId)
      .filter((id): id is string => all.includes(id ?? ''));
    const started = [...new Set(order)].filter((id) => id !== fays[0]);
    expect(started[0]).toBe(gusSession);
    expect(started.slice(1).sort()).toEqual(fays.slice(1).sort());
  });
});
