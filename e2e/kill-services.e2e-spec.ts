import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredSessionEvent } from '@weft/contracts';
import { create as createTar } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newUserKey } from './support/api';
import {
  type Service,
  freezeService,
  killService,
  sessionContainers,
  startService,
  startedAt,
  stopService,
  thawService,
  waitHealthy,
  waitStackHealthy,
} from './support/services';
import { type LiveTurn, logProblems, readLog, startTurn } from './support/turns';

/**
 * Kill tests on the compose stack: a service dies (SIGKILL of its process, as a crash or the OOM
 * killer does it; the restart policy brings it back) or restarts in the middle of a turn. Each
 * checks that the turn ends with `turn.completed` or a `turn.failed` that names the failure within
 * a bound, that the session's log has no gap, that no tool call ran twice, and that the stack
 * serves the next turn. Every service killed is healthy again (and /readyz answers) before the
 * test ends: the stack is shared with the other e2e files.
 */
describe('services killed or restarted mid-turn', () => {
  let key: string;
  let workspaceId: string;
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    await waitStackHealthy();
    key = await newUserKey(`kill-tests-${Date.now()}`);
    const upload = await call<{ id: string }>('POST', '/v1/workspaces', key, await workspaceArchive({ 'README.md': '# kill tests\n' }), 'application/gzip');
    expect(upload.status).toBe(201);
    workspaceId = upload.body.id;
  });

  afterAll(async () => {
    // A failed assertion may have left a worker stopped: it must not stay so for the next file.
    for (const service of ['inference', 'tools', 'sandbox'] as const) thawService(service);
    await waitStackHealthy(120_000);
    console.info(`kill tests, seconds from the fault to the turn's end: ${JSON.stringify(timings)}`);
  });

  async function newSession(model: string, extra: Record<string, unknown> = {}): Promise<string> {
    const session = await call<{ id: string }>('POST', '/v1/sessions', key, { workspaceId, model, sandboxNetwork: 'none', ...extra });
    expect(session.status).toBe(201);
    return session.body.id;
  }

  /** The turn's end, its time since `faultAt`, and the session's whole log checked for gaps. */
  async function settle(name: string, turn: LiveTurn, sessionId: string, faultAt: number, boundMs: number) {
    const { event, at } = await turn.ended;
    timings[name] = Math.round((at - faultAt) / 100) / 10;
    expect(at - faultAt, `${name}: the turn ended ${at - faultAt} ms after the fault`).toBeLessThan(boundMs);
    const log = await readLog(key, sessionId, event.id);
    expect(logProblems(log)).toEqual([]);
    // Every event a client saw live is in the log as it was, under the same id: none was lost.
    const stored = new Map(log.map((e) => [e.id, e]));
    for (const seen of turn.events) expect(stored.get(seen.id), `event ${seen.id} (${seen.type})`).toEqual(seen);
    return { event, log };
  }

  /** The stack serves the next turn: on the same session, and on a new one. */
  async function servesNextTurn(sessionId: string, expected: string): Promise<void> {
    const next = await startTurn(key, sessionId, 'Are you still there?');
    const { event } = await next.ended;
    expect(describeEnd(event)).toBe('turn.completed');
    expect(completedText(next.events)).toContain(expected);
    const fresh = await startTurn(key, await newSession('scripted/kill-quick'), 'One more, on a new session.');
    expect(describeEnd((await fresh.ended).event)).toBe('turn.completed');
  }

  async function readWorkspaceFile(path: string): Promise<string | undefined> {
    const file = await call<string>('GET', `/v1/workspaces/${workspaceId}/files/${path}`, key);
    return file.status === 200 ? file.body : undefined;
  }

  async function restored(service: Service, before: string): Promise<void> {
    await waitHealthy(service, before);
    await waitStackHealthy();
  }

  it('goes on with the generation on the restarted inference worker when it is killed mid-stream: each word once', async () => {
    const sessionId = await newSession('scripted/kill-slow-answer');
    const turn = await startTurn(key, sessionId, 'Answer slowly.');
    // Tokens are flowing: the worker holds the generation when it dies.
    await turn.waitFor((e) => e.type === 'message.delta' && e.text.includes('word2'));
    const before = startedAt('inference');
    const faultAt = Date.now();
    killService('inference');
    // The gateway drops the worker after three missed heartbeats (2 s each), then continues the
    // generation from the text already streamed on the restarted worker, within
    // AGENT_INFERENCE_BUSY_WAIT_MS (120 s).
    const { event, log } = await settle('inference', turn, sessionId, faultAt, 110_000);
    expect(describeEnd(event)).toBe('turn.completed');
    expect(log.filter((e) => e.type === 'generation.resumed')).toHaveLength(1);
    const answer = completedText(log);
    expect(answer).toMatch(/^A slow answer, one word at a time: word1 word2 .* word29 word30\.$/);
    expect(answer.match(/word\d+/g)).toEqual(Array.from({ length: 30 }, (_, i) => `word${i + 1}`));
    expect(deltaText(log, turn.turnId)).toBe(answer);
    await restored('inference', before);
    await servesNextTurn(sessionId, 'Still here after the restart.');
  });

  it('reports a file-tool call cut off by the tools worker dying as unknown, and never runs it twice', async () => {
    const sessionId = await newSession('scripted/kill-tools-write');
    const turn = await startTurn(key, sessionId, 'Write the file.');
    // The call waits on the user's answer: stop the worker now, so the call reaches a process
    // that will die holding it (it never replies), then answer.
    const asked = await turn.waitFor((e) => e.type === 'permission.requested');
    freezeService('tools');
    const before = startedAt('tools');
    try {
      const answer = await call('POST', `/v1/sessions/${sessionId}/permissions/${'requestId' in asked ? asked.requestId : ''}`, key, { decision: 'allow_once' });
      expect(answer.status).toBe(200);
      await turn.waitFor((e) => e.type === 'permission.decided');
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      killService('tools');
    }
    const faultAt = Date.now();
    // No reply ever comes: the worker's heartbeats stopped with it (1 s each), and the gateway
    // fails the call after three missed ones, not at NATS_REQUEST_TIMEOUT_MS (30 s).
    const { event, log } = await settle('tools', turn, sessionId, faultAt, 10_000);
    expect(describeEnd(event)).toBe('turn.failed TOOLS.UNAVAILABLE');
    const outcome = log.find((e) => e.type === 'tool.completed');
    expect(outcome).toMatchObject({ type: 'tool.completed', name: 'write_file', isError: true });
    expect(outcome && 'output' in outcome ? outcome.output : '').toMatch(/may or may not have taken effect/);
    await restored('tools', before);
    // Nothing delivered the call again to the worker that came back.
    const file = await call('GET', `/v1/workspaces/${workspaceId}/files/kill/tools.txt`, key);
    expect(file.status).toBe(404);
    await servesNextTurn(sessionId, 'Back after the tools worker died.');
  });

  it('reports a command cut off by the sandbox worker dying as unknown, runs it once, and removes its container', async () => {
    const sessionId = await newSession('scripted/kill-sandbox-append', { sandboxWorkspace: 'read-write' });
    const turn = await startTurn(key, sessionId, 'Run the command.');
    const asked = await turn.waitFor((e) => e.type === 'permission.requested');
    const answer = await call('POST', `/v1/sessions/${sessionId}/permissions/${'requestId' in asked ? asked.requestId : ''}`, key, { decision: 'allow_once' });
    expect(answer.status).toBe(200);
    // The command has started (its first line is written) and sleeps: kill its worker now.
    await waitFor(async () => (await readWorkspaceFile('kill-sandbox.log')) === 'ran\n', 60_000);
    const before = startedAt('sandbox');
    const faultAt = Date.now();
    killService('sandbox');
    // No reply ever comes: the worker's heartbeats stopped with it, and the gateway fails the
    // command after three missed ones, not at SANDBOX_TIMEOUT_MS (120 s).
    const { event, log } = await settle('sandbox', turn, sessionId, faultAt, 10_000);
    expect(describeEnd(event)).toBe('turn.failed SANDBOX.UNAVAILABLE');
    const outcome = log.find((e) => e.type === 'tool.completed');
    expect(outcome).toMatchObject({ type: 'tool.completed', name: 'run_command', isError: true });
    await restored('sandbox', before);
    // The worker that came back removed the container the dead one left running the command.
    expect(sessionContainers(sessionId)).toEqual([]);
    // It ran once, and went with its container before its last line (a minute on): nothing ran it again.
    expect(await readWorkspaceFile('kill-sandbox.log')).toBe('ran\n');
    await servesNextTurn(sessionId, 'Back after the sandbox worker died.');
  });

  it('loses no accepted message or event when Redis is killed mid-turn (AOF)', async () => {
    const sessionId = await newSession('scripted/kill-slow-answer');
    const turn = await startTurn(key, sessionId, 'Answer slowly while Redis dies.');
    await turn.waitFor((e) => e.type === 'message.delta' && e.text.includes('word2'));
    const before = startedAt('redis');
    const faultAt = Date.now();
    killService('redis');
    const { event, log } = await settle('redis', turn, sessionId, faultAt, 60_000);
    expect(describeEnd(event)).toBe('turn.completed');
    // The whole answer streamed into the log, word by word, and none of it twice.
    expect(deltaText(log, turn.turnId)).toBe(completedText(log));
    await restored('redis', before);
    const detail = await call<{ messages: Array<{ role: string; content: string }> }>('GET', `/v1/sessions/${sessionId}`, key);
    expect(detail.body.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    await servesNextTurn(sessionId, 'Still here after the restart.');
  });

  it('fails turns clearly while NATS is down, and every service reconnects when it is back', async () => {
    const sessionId = await newSession('scripted/kill-slow-answer');
    const other = await newSession('scripted/kill-quick');
    const turn = await startTurn(key, sessionId, 'Answer slowly while NATS restarts.');
    await turn.waitFor((e) => e.type === 'message.delta' && e.text.includes('word2'));
    const before = startedAt('nats');
    const faultAt = Date.now();
    stopService('nats');
    try {
      // What needs a worker is refused at once, nothing having been sent: retryable, never a 500.
      const refused = await startTurn(key, other, 'Hello while NATS is down.');
      expect(describeEnd((await refused.ended).event)).toBe('turn.failed TRANSPORT.NO_RESPONDERS');
      const file = await call<{ error: { code: string } }>('GET', `/v1/workspaces/${workspaceId}/files/README.md`, key);
      expect([file.status, file.body.error.code]).toEqual([503, 'TRANSPORT.NO_RESPONDERS']);
      // The generation in flight is given up when its worker misses three heartbeats.
      const { event } = await settle('nats', turn, sessionId, faultAt, 20_000);
      expect(describeEnd(event)).toBe('turn.failed INFERENCE.WORKER_LOST');
    } finally {
      startService('nats');
    }
    await restored('nats', before);
    await servesNextTurn(sessionId, 'word30');
  });
});

function describeEnd(event: StoredSessionEvent): string {
  return event.type === 'turn.failed' ? `turn.failed ${event.code}` : event.type;
}

function completedText(events: StoredSessionEvent[]): string {
  const done = events.findLast((e) => e.type === 'message.completed');
  return done && 'content' in done ? done.content : '';
}

function deltaText(events: StoredSessionEvent[], turnId: string): string {
  return events.map((e) => (e.type === 'message.delta' && e.turnId === turnId ? e.text : '')).join('');
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}

async function workspaceArchive(files: Record<string, string>): Promise<Uint8Array> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-kill-ws-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  const chunks: Buffer[] = [];
  for await (const chunk of createTar({ gzip: true, cwd: dir }, Object.keys(files))) chunks.push(chunk as Buffer);
  rmSync(dir, { recursive: true, force: true });
  return new Uint8Array(Buffer.concat(chunks));
}
