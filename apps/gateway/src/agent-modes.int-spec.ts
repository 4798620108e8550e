import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, startGatewayUnderTest } from './test/gateway-under-test';
import { ScriptedWorkersModule, requestsOf, script, scriptedWorld } from './test/scripted-workers';
import { ofType, sessionApi } from './test/session-api';

/**
 * Planning mode, delegation to a junior, shared notes and chains through the public HTTP API, on
 * real Redis and NATS with scripted workers (the gateway is what is under test). The scripted
 * world serves `senior` and `junior` models with those roles.
 */
let gateway: GatewayUnderTest;
let client: ReturnType<typeof sessionApi>;

beforeAll(async () => {
  gateway = await startGatewayUnderTest(ScriptedWorkersModule, { INFERENCE_TIMEOUT_MS: '20000', PERMISSION_TIMEOUT_MS: '3000' });
  client = sessionApi(gateway.base);
});

afterAll(async () => {
  await gateway?.stop();
});

const read = (path: string) => ({ name: 'read_file', arguments: { path } });

describe('planning mode', () => {
  it('plans, lists subtasks, runs each as its own loop with the plan and the finished work, then sums up', async () => {
    const f = await client.fixture('planner', {}, { 'src/a.ts': 'export const a = 1;' });
    script(f.sessionId, [
      { text: 'Plan: read a.ts, then report.' },
      { text: '{"subtasks":[{"title":"Read","description":"read src/a.ts"},{"title":"Report","description":"say what it holds"}]}' },
      { calls: [read('src/a.ts')] },
      { text: 'a.ts exports a.' },
      { text: 'It holds one constant.' },
      { text: 'Done: read and reported.' },
    ]);
    const { json, after } = await client.start(f, '/messages', { content: 'look at a.ts', mode: 'plan' });
    expect(json).toMatchObject({ mode: 'plan', model: 'tiny' });
    const events = await client.follow(f, after);
    expect(ofType(events, 'plan.created')[0]).toMatchObject({ plan: 'Plan: read a.ts, then report.', subtasks: [{ title: 'Read' }, { title: 'Report' }] });
    expect(ofType(events, 'subtask.started').map((e) => e.title)).toEqual(['Read', 'Report']);
    expect(ofType(events, 'subtask.completed').map((e) => [e.index, e.status, e.summary])).toEqual([
      [1, 'completed', 'a.ts exports a.'],
      [2, 'completed', 'It holds one constant.'],
    ]);
    expect(ofType(events, 'tool.completed')[0]).toMatchObject({ threadId: expect.stringMatching(/^sub_turn_.+_1$/), output: 'export const a = 1;' });
    expect(events.at(-2)).toMatchObject({ type: 'message.completed', content: 'Done: read and reported.' });
    expect(events.at(-1)?.type).toBe('turn.completed');
    const second = requestsOf(f.sessionId)[4];
    expect(second?.messages[1]?.content).toContain('1. Read (completed): a.ts exports a.');

    // A planning session plans every turn; `mode: chat` opts one out.
    await client.api('PATCH', `/v1/sessions/${f.sessionId}`, f.key, { planning: true });
    script(f.sessionId, [{ text: 'just an answer' }]);
    const chat = await client.start(f, '/messages', { content: 'quick question', mode: 'chat' });
    expect(ofType(await client.follow(f, chat.after), 'plan.created')).toHaveLength(0);
    expect((await client.api('GET', `/v1/sessions/${f.sessionId}`, f.key)).json).toMatchObject({ planning: true });
  });
});

describe('delegation', () => {
  it('lets the senior hand a task to the junior, shows the hand-off both ways, and returns the result for review', async () => {
    const f = await client.fixture('delegator', { model: 'senior' }, { 'README.md': '# demo' });
    script(f.sessionId, [
      { calls: [{ name: 'delegate', arguments: { task: 'summarise README.md' } }] },
      { calls: [read('README.md')] },
      { text: 'It is a demo.\nNote for Senior: the README is one line' },
      { text: 'Checked: the README is a one-line demo.' },
    ]);
    const { after } = await client.start(f, '/messages', { content: 'what is this project?' });
    const events = await client.follow(f, after);
    const started = ofType(events, 'delegation.started')[0];
    expect(started).toMatchObject({ from: 'senior', to: 'junior', task: 'summarise README.md' });
    expect(ofType(events, 'delegation.completed')[0]).toMatchObject({ threadId: started?.threadId, status: 'completed', result: expect.stringContaining('It is a demo.') });
    const requests = requestsOf(f.sessionId);
    expect(requests.map((r) => r.model)).toEqual(['senior', 'junior', 'junior', 'senior']);
    expect(requests[0]?.tools?.map((t) => t.name)).toContain('delegate');
    expect(requests[1]?.tools?.map((t) => t.name)).not.toContain('delegate');
    expect(requests[3]?.messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('Review this') });
    expect(events.at(-2)).toMatchObject({ type: 'message.completed', content: 'Checked: the README is a one-line demo.' });

    const notes = await client.api('GET', `/v1/workspaces/${f.workspaceId}/notes`, f.key);
    expect(notes.json.notes).toEqual([expect.objectContaining({ text: 'Note for Senior: the README is one line', source: 'answer', author: 'junior' })]);

    // The export keeps the junior's own conversation beside the session's, and the audit the hand-off.
    const exported = (await client.api('GET', `/v1/sessions/${f.sessionId}/export`, f.key)).text.trim().split('\n').map((line) => JSON.parse(line));
    const juniorLines = exported.filter((line) => line.type === 'message' && line.threadId === started?.threadId);
    expect(juniorLines.map((line) => line.message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const markdown = (await client.api('GET', `/v1/sessions/${f.sessionId}/export?format=markdown`, f.key)).text;
    expect(markdown).toContain('### senior hands a task to junior');
    expect(markdown).toContain(`## Assistant · ${started?.threadId}`);
    const audit = (await client.api('GET', `/v1/sessions/${f.sessionId}/audit`, f.key)).text;
    expect(audit).toContain('"type":"delegation.started"');
  });

  it('sends a task straight to the junior, and refuses a session model that does not exist', async () => {
    const f = await client.fixture('local');
    script(f.sessionId, [{ text: 'done locally' }]);
    const { json, after } = await client.start(f, '/messages', { content: 'rename a variable', to: 'junior' });
    expect(json).toMatchObject({ model: 'junior' });
    const events = await client.follow(f, after);
    expect(ofType(events, 'turn.started')[0]).toMatchObject({ model: 'junior' });
    expect(requestsOf(f.sessionId).at(-1)?.model).toBe('junior');
    const bad = await client.api('POST', `/v1/sessions/${f.sessionId}/messages`, f.key, { content: 'x', to: 'intern' });
    expect(bad).toMatchObject({ status: 400, json: { error: { code: 'COMMON.VALIDATION_FAILED', message: expect.stringContaining('to') } } });
  });
});

describe('shared notes', () => {
  it('stores the remember tool, injects notes into the next prompt, and lets only the owner list and delete them', async () => {
    const f = await client.fixture('notes');
    const other = await client.fixture('notes-intruder');
    script(f.sessionId, [{ calls: [{ name: 'remember', arguments: { note: 'use pnpm, not npm' } }] }, { text: 'noted' }, { text: 'second turn' }]);
    const first = await client.start(f, '/messages', { content: 'remember that we use pnpm' });
    const events = await client.follow(f, first.after);
    expect(ofType(events, 'note.saved')[0]).toMatchObject({ text: 'use pnpm, not npm', source: 'tool', model: 'tiny' });
    expect(ofType(events, 'permission.decided')[0]).toMatchObject({ tool: 'remember', decision: 'allow' });

    const added = await client.api('POST', `/v1/workspaces/${f.workspaceId}/notes`, f.key, { text: 'CI is in .ci/run' });
    expect(added).toMatchObject({ status: 201, json: { text: 'CI is in .ci/run', source: 'user' } });
    const second = await client.start(f, '/messages', { content: 'next' });
    await client.follow(f, second.after);
    expect(requestsOf(f.sessionId).at(-1)?.messages[0]?.content).toContain('- use pnpm, not npm\n- CI is in .ci/run');

    expect((await client.api('GET', `/v1/workspaces/${f.workspaceId}/notes`, other.key)).status).toBe(404);
    expect((await client.api('DELETE', `/v1/workspaces/${f.workspaceId}/notes`, other.key)).status).toBe(404);
    expect((await client.api('POST', `/v1/workspaces/${f.workspaceId}/notes`, f.key, { text: ' ' })).status).toBe(400);
    const noteId = String(added.json.id);
    expect((await client.api('DELETE', `/v1/workspaces/${f.workspaceId}/notes/${noteId}`, f.key)).status).toBe(204);
    expect((await client.api('DELETE', `/v1/workspaces/${f.workspaceId}/notes/${noteId}`, f.key)).status).toBe(404);
    expect(await client.api('DELETE', `/v1/workspaces/${f.workspaceId}/notes`, f.key)).toMatchObject({ status: 200, json: { deleted: 1 } });
    expect((await client.api('GET', `/v1/workspaces/${f.workspaceId}/notes`, f.key)).json).toEqual({ notes: [] });
  });
});

describe('chains', () => {
  const CHAIN = [
    'description: find a bug, run the tests, fix it',
    'inputs:',
    '  issue: { description: what is broken }',
    'steps:',
    '  - name: find',
    '    prompt: "Find where {{ inputs.issue }} happens"',
    '  - name: tests',
    '    tool: read_file',
    '    arguments: { path: "{{ steps.find.output }}" }',
    '  - name: fix',
    '    prompt: "Fix it. The file holds: {{ steps.tests.output }}"',
  ].join('\n');

  it('runs a chain from .weft/chains with inputs, each step an event, outputs feeding later steps', async () => {
    const f = await client.fixture('chains', {}, { '.weft/chains/fix-bug.yaml': CHAIN, 'src/parse.ts': 'bad code' });
    script(f.sessionId, [{ text: 'src/parse.ts' }, { text: 'Fixed the parser.' }]);
    const listed = await client.api('GET', `/v1/sessions/${f.sessionId}/chains`, f.key);
    expect(listed.json).toEqual({
      chains: [{ name: 'fix-bug', description: 'find a bug, run the tests, fix it', inputs: { issue: { description: 'what is broken' } }, steps: 3 }],
    });
    const { json, after } = await client.start(f, '/chains/fix-bug', { inputs: { issue: 'the crash' } });
    expect(json).toMatchObject({ chain: 'fix-bug', steps: 3 });
    const events = await client.follow(f, after);
    expect(ofType(events, 'chain.step.started').map((e) => [e.step, e.kind])).toEqual([
      ['find', 'prompt'],
      ['tests', 'tool'],
      ['fix', 'prompt'],
    ]);
    expect(ofType(events, 'chain.step.completed').map((e) => e.output)).toEqual(['src/parse.ts', 'bad code', 'Fixed the parser.']);
    const requests = requestsOf(f.sessionId);
    expect(requests[0]?.messages.at(-1)).toEqual({ role: 'user', content: 'Find where the crash happens' });
    expect(requests[1]?.messages.at(-1)?.content).toBe('Fix it. The file holds: bad code');
    expect(events.at(-1)?.type).toBe('turn.completed');
    expect(scriptedWorld.toolCalls.some((c) => c.workspaceId === f.workspaceId && c.tool === 'read_file')).toBe(true);
  });

  it('refuses a missing chain, a bad file, missing inputs and another user, storing nothing', async () => {
    const f = await client.fixture('chains-bad', {}, { '.weft/chains/fix-bug.yaml': CHAIN, '.weft/chains/broken.yaml': 'steps: [' });
    const other = await client.fixture('chains-intruder');
    const run = (name: string, body: unknown, key = f.key) => client.api('POST', `/v1/sessions/${f.sessionId}/chains/${name}`, key, body);
    const listed = await client.api('GET', `/v1/sessions/${f.sessionId}/chains`, f.key);
    expect(listed.json.chains).toEqual([
      { name: 'broken', error: expect.stringContaining('not valid YAML') },
      expect.objectContaining({ name: 'fix-bug', steps: 3 }),
    ]);
    expect(await run('nope', {})).toMatchObject({ status: 404, json: { error: { message: expect.stringContaining('.weft/chains/nope.yaml') } } });
    expect(await run('broken', {})).toMatchObject({ status: 400, json: { error: { code: 'AGENT.CHAIN_INVALID', message: expect.stringContaining('not valid YAML') } } });
    expect(await run('fix-bug', {})).toMatchObject({ status: 400, json: { error: { message: expect.stringContaining('missing input "issue" (what is broken)') } } });
    expect(await run('fix-bug', { inputs: { issue: 'x', extra: 'y' } })).toMatchObject({ status: 400, json: { error: { message: expect.stringContaining('unknown input "extra"') } } });
    expect(await run('-dash', {})).toMatchObject({ status: 400, json: { error: { message: expect.stringContaining('not a chain name') } } });
    expect((await run('fix-bug', { inputs: { issue: 'x' } }, other.key)).status).toBe(404);
    const session = await client.api('GET', `/v1/sessions/${f.sessionId}`, f.key);
    expect(session.json).toMatchObject({ activeTurnId: null, messages: [] });
  });
});
