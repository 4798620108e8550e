import type { StoredSessionEvent } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, startGatewayProcess } from './test/gateway-process';
import { PROCESS_ADMIN_TOKEN, type ProcessWorld, processApi, startProcessWorld } from './test/process-world';
import { script, scriptedWorld } from './test/scripted-workers';
import { readEvents } from './test/sse-client';

/**
 * Kill the gateway (SIGKILL) in the middle of a turn, start another: the turn finishes, the
 * user's message is kept, and no tool call runs twice. The gateways are real processes built
 * from this tree; inference, tools and sandbox are scripted stand-ins in this process.
 */
const ADMIN_TOKEN = PROCESS_ADMIN_TOKEN;
const api = processApi;

let world: ProcessWorld;
let env: Record<string, string>;
const gateways: GatewayProcess[] = [];

beforeAll(async () => {
  world = await startProcessWorld('dur', { PERMISSIONS_SERVER_RULES: JSON.stringify({ allow: ['Bash(make:*)'] }) });
  env = world.env;
});

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.kill()));
  await world?.stop();
});

/** A gateway process, a user with a key, and a session of theirs on `tiny`. */
async function firstGatewayWithSession(name: string) {
  const first = await startGatewayProcess(env);
  gateways.push(first);
  const userId = String((await api(first.url, 'POST', '/v1/admin/users', ADMIN_TOKEN, { name })).json.id);
  const key = String((await api(first.url, 'POST', `/v1/admin/users/${userId}/keys`, ADMIN_TOKEN)).json.key);
  const workspaceId = String((await api(first.url, 'POST', '/v1/workspaces', key, {})).json.id);
  const sessionId = String((await api(first.url, 'POST', '/v1/sessions', key, { workspaceId, model: 'tiny' })).json.id);
  return { first, key, sessionId };
}

/** Another gateway process, and the session's whole log up to the end of the turn it takes over. */
async function secondGatewayFollowing(sessionId: string, key: string) {
  const second = await startGatewayProcess(env);
  gateways.push(second);
  const events = await readEvents(
    `${second.url}/v1/sessions/${sessionId}/events?after=0-0`,
    { authorization: `Bearer ${key}` },
    (e: StoredSessionEvent) => e.type === 'turn.completed' || e.type === 'turn.failed',
  );
  return { second, events };
}

const commandsRun = (command: string) => scriptedWorld.execs.filter((e) => e.mode === 'command' && e.command === command).length;

describe('a gateway killed mid-turn', () => {
  it('is replaced by another that finishes the turn without running a finished or started call again', async () => {
    const { first, key, sessionId } = await firstGatewayWithSession('kim');
    script(sessionId, [
      { calls: [{ name: 'run_command', arguments: { command: 'make one' } }] },
      { calls: [{ name: 'run_command', arguments: { command: 'make two' } }] },
      { text: 'Both steps are done.' },
    ]);
    let release!: () => void;
    scriptedWorld.execGates.set('make two', new Promise<void>((r) => (release = r)));
    const started = new Promise<void>((r) => scriptedWorld.execStarted.set('make two', r));

    const posted = await api(first.url, 'POST', `/v1/sessions/${sessionId}/messages`, key, { content: 'build both' });
    const turnId = String(posted.json.turnId);
    await started;
    await first.kill();
    release();

    const { second, events } = await secondGatewayFollowing(sessionId, key);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed', turnId });
    expect(events.filter((e) => e.type === 'turn.started').map((e) => e.type === 'turn.started' && e.resumed)).toEqual([undefined, true]);
    expect(commandsRun('make one')).toBe(1);
    expect(commandsRun('make two')).toBe(1);
    const two = events.find((e) => e.type === 'tool.completed' && e.output.includes('may or may not have taken effect'));
    expect(two).toBeDefined();

    const session = await api(second.url, 'GET', `/v1/sessions/${sessionId}`, key);
    const messages = session.json.messages as Array<{ role: string; content: string }>;
    expect(messages[0]).toEqual({ role: 'user', content: 'build both' });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(messages.at(-1)?.content).toBe('Both steps are done.');
    expect(session.json.activeTurnId).toBeNull();
  });

  it('carries a planning turn on from the subtask it was in, without planning again or rerunning a finished subtask', async () => {
    const { first, key, sessionId } = await firstGatewayWithSession('lin');
    script(sessionId, [
      { text: 'Plan: build, then package.' },
      { text: '{"subtasks":[{"title":"Build","description":"make build"},{"title":"Package","description":"make package"}]}' },
      { calls: [{ name: 'run_command', arguments: { command: 'make build' } }] },
      { text: 'Built.' },
      { calls: [{ name: 'run_command', arguments: { command: 'make package' } }] },
      { text: 'Packaging may have run; checked.' },
      { text: 'Built and packaged.' },
    ]);
    let release!: () => void;
    scriptedWorld.execGates.set('make package', new Promise<void>((r) => (release = r)));
    const started = new Promise<void>((r) => scriptedWorld.execStarted.set('make package', r));

    const posted = await api(first.url, 'POST', `/v1/sessions/${sessionId}/messages`, key, { content: 'ship it', mode: 'plan' });
    const turnId = String(posted.json.turnId);
    await started;
    await first.kill();
    release();

    const { events } = await secondGatewayFollowing(sessionId, key);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed', turnId });
    expect(events.filter((e) => e.type === 'plan.created')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'subtask.completed').map((e) => e.type === 'subtask.completed' && e.title)).toEqual(['Build', 'Package']);
    expect(commandsRun('make build')).toBe(1);
    expect(commandsRun('make package')).toBe(1);
    expect(events.find((e) => e.type === 'message.completed')).toMatchObject({ content: 'Built and packaged.' });
  });
});
