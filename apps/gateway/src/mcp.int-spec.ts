import type { StoredSessionEvent } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, startGatewayUnderTest } from './test/gateway-under-test';
import { type McpTestServer, startMcpTestServer } from './test/mcp-test-server';
import { ScriptedWorkersModule, requestsOf, script } from './test/scripted-workers';
import { type SessionFixture, ofType, sessionApi } from './test/session-api';

/**
 * MCP servers through the public API, on real Redis and NATS, against a real MCP server (the
 * official SDK over streamable HTTP): the admin's servers and a workspace's `.weft/mcp.json`,
 * their tools offered to the model, gated, logged, and failures told without failing the turn.
 */
const TOKEN = 'demo-secret-token';
let mcp: McpTestServer;
let gateway: GatewayUnderTest;
let client: ReturnType<typeof sessionApi>;

beforeAll(async () => {
  mcp = await startMcpTestServer(TOKEN);
  // The token comes from the gateway's environment, as an admin keeps it in .env.
  process.env.WEFT_TEST_MCP_TOKEN = TOKEN;
  gateway = await startGatewayUnderTest(ScriptedWorkersModule, {
    MCP_SERVERS: JSON.stringify({
      mcpServers: {
        demo: { type: 'http', url: mcp.url, headers: { authorization: 'Bearer ${WEFT_TEST_MCP_TOKEN}' } },
        broken: { url: 'http://127.0.0.1:9/mcp' },
        local: { command: 'npx', args: ['some-mcp-server'] },
      },
    }),
    MCP_ALLOWED_HOSTS: '127.0.0.1',
    MCP_CONNECT_TIMEOUT_MS: '3000',
    MCP_CALL_TIMEOUT_MS: '1500',
    PERMISSIONS_SERVER_RULES: JSON.stringify({ allow: ['mcp__demo__add', 'mcp__demo__hang'] }),
  });
  client = sessionApi(gateway.base);
});

afterAll(async () => {
  await gateway?.stop();
  await mcp?.close();
  delete process.env.WEFT_TEST_MCP_TOKEN;
});

async function runTurn(f: SessionFixture, content: string, until?: (e: StoredSessionEvent) => boolean) {
  const { after } = await client.start(f, '/messages', { content });
  return client.follow(f, after, until);
}

describe('MCP servers', () => {
  it("lists a session's servers with their state and tools: ready, unreachable, a workspace's own within what the admin allows", async () => {
    const workspaceFile = JSON.stringify({
      mcpServers: {
        mine: { url: mcp.url.replace('/mcp', '/other'), headers: { authorization: `Bearer ${TOKEN}` } },
        elsewhere: { url: 'http://localhost:1/mcp' },
        demo: { url: 'http://127.0.0.1:2/mcp' },
        'bad name!': { url: 'http://127.0.0.1:3/mcp' },
        tool: { command: 'python3', args: ['server.py'] },
      },
    });
    const f = await client.fixture('mcp-lister', {}, { '.weft/mcp.json': workspaceFile });
    const listed = await client.api('GET', `/v1/sessions/${f.sessionId}/mcp`, f.key);
    expect(listed.status).toBe(200);
    const servers = listed.json.servers as Array<Record<string, unknown>>;
    const byName = (name: string) => servers.find((s) => s.name === name);
    expect(byName('demo')).toMatchObject({
      scope: 'server',
      state: 'ready',
      tools: [
        { name: 'mcp__demo__add', tool: 'add', description: 'Adds two numbers' },
        { name: 'mcp__demo__fail', tool: 'fail' },
        { name: 'mcp__demo__hang', tool: 'hang' },
      ],
    });
    expect(byName('broken')).toMatchObject({ scope: 'server', state: 'failed', problem: expect.stringContaining('could not reach it') });
    // Stdio servers run in the session's sandbox container; these workers have no sandbox for it.
    expect(byName('local')).toMatchObject({ transport: 'stdio', scope: 'server', state: 'failed' });
    expect(byName('tool')).toMatchObject({ transport: 'stdio', scope: 'workspace', state: 'refused', problem: expect.stringContaining('MCP_WORKSPACE_STDIO') });
    expect(byName('mine')).toMatchObject({ scope: 'workspace', state: 'ready', tools: [expect.objectContaining({ name: 'mcp__mine__add' }), expect.anything(), expect.anything()] });
    expect(byName('elsewhere')).toMatchObject({ state: 'refused', problem: expect.stringContaining('MCP_ALLOWED_HOSTS') });
    expect(servers.filter((s) => s.name === 'demo')).toHaveLength(2);
    expect(servers.find((s) => s.name === 'demo' && s.scope === 'workspace')).toMatchObject({ state: 'invalid' });
    expect(byName('bad name!')).toMatchObject({ state: 'invalid' });

    const other = await client.fixture('mcp-intruder');
    expect((await client.api('GET', `/v1/sessions/${f.sessionId}/mcp`, other.key)).status).toBe(404);
  });

  it('offers the tools to the model, runs an allowed call, reports a tool error to the model, and tells the user which servers are unavailable', async () => {
    const f = await client.fixture('mcp-caller');
    script(f.sessionId, [
      { calls: [{ name: 'mcp__demo__add', arguments: { a: 2, b: 3 } }] },
      { calls: [{ name: 'mcp__demo__fail', arguments: {} }] },
      { text: 'done' },
    ]);
    const { after } = await client.start(f, '/messages', { content: 'add 2 and 3' });
    const asked = await client.follow(f, after, (e) => e.type === 'permission.requested');
    // mcp__demo__fail has no allow rule: MCP tools ask by default.
    expect(ofType(asked, 'permission.requested')[0]).toMatchObject({ call: expect.objectContaining({ name: 'mcp__demo__fail' }) });
    const requestId = ofType(asked, 'permission.requested')[0]?.requestId;
    expect((await client.api('POST', `/v1/sessions/${f.sessionId}/permissions/${requestId}`, f.key, { decision: 'allow_once' })).status).toBe(200);
    const rest = await client.follow(f, asked.at(-1)?.id ?? after);
    const events = [...asked, ...rest];

    expect(events.at(-1)?.type).toBe('turn.completed');
    expect(ofType(events, 'tool.completed').map((e) => ({ isError: e.isError, output: e.output }))).toEqual([
      { isError: false, output: '5' },
      { isError: true, output: 'MCP.TOOL_FAILED: MCP server "demo" reported an error: the demo tool broke' },
    ]);
    expect(mcp.calls.slice(-2)).toEqual([
      { tool: 'add', args: { a: 2, b: 3 } },
      { tool: 'fail', args: {} },
    ]);
    expect(ofType(events, 'permission.decided')[0]).toMatchObject({ decision: 'allow', decidedBy: 'policy', rule: 'mcp__demo__add' });
    const unavailable = ofType(events, 'mcp.server.unavailable').map((e) => [e.server, e.state]);
    expect(unavailable).toEqual([
      ['broken', 'failed'],
      ['local', 'failed'],
    ]);

    const [first] = requestsOf(f.sessionId);
    const offered = first?.tools?.find((t) => t.name === 'mcp__demo__add');
    expect(offered?.parameters).toMatchObject({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } });
    expect(first?.messages[0]?.content).toContain('MCP servers unavailable this turn');
    expect(first?.messages[0]?.content).toContain('broken: could not reach it');
  });

  it('ends a call the server never answers at MCP_CALL_TIMEOUT_MS as a failed call, the turn going on, and audits MCP calls', async () => {
    const f = await client.fixture('mcp-hang');
    script(f.sessionId, [{ calls: [{ name: 'mcp__demo__hang', arguments: {} }] }, { calls: [{ name: 'mcp__demo__add', arguments: { a: 1, b: 1 } }] }, { text: 'went on' }]);
    const events = await runTurn(f, 'try the slow one');
    expect(events.at(-1)?.type).toBe('turn.completed');
    expect(ofType(events, 'tool.completed').map((e) => [e.isError, e.output])).toEqual([
      [true, expect.stringMatching(/^MCP\.TOOL_FAILED: MCP server "demo" failed on hang: .*timed out/i)],
      [false, '2'],
    ]);
    const audit = await client.api('GET', `/v1/sessions/${f.sessionId}/audit`, f.key);
    const entries = audit.text.trim().split('\n').map((line) => JSON.parse(line) as StoredSessionEvent);
    expect(ofType(entries, 'tool.called').map((e) => e.call.name)).toEqual(['mcp__demo__hang', 'mcp__demo__add']);
    expect(ofType(entries, 'permission.decided').map((e) => [e.decision, e.rule])).toEqual([
      ['allow', 'mcp__demo__hang'],
      ['allow', 'mcp__demo__add'],
    ]);
  });

  it("keeps a user's own servers for all their sessions, within the admin's host list, and refuses an invalid document naming the entry", async () => {
    const f = await client.fixture('mcp-own');
    const other = await client.fixture('mcp-neighbour');
    const document = {
      mcpServers: {
        mine: { url: mcp.url, headers: { authorization: `Bearer ${TOKEN}` } },
        far: { url: 'http://localhost:1/mcp' },
        demo: { url: mcp.url },
      },
    };
    expect((await client.api('PUT', '/v1/me/mcp', f.key, document)).status).toBe(200);
    expect((await client.api('GET', '/v1/me/mcp', f.key)).json).toEqual(document);
    const bad = await client.api('PUT', '/v1/me/mcp', f.key, { mcpServers: { 'bad name!': { url: mcp.url }, ok: { command: 'x' } } });
    expect(bad).toMatchObject({ status: 400, json: { error: { code: 'COMMON.VALIDATION_FAILED', message: expect.stringContaining('bad name!') } } });
    expect((await client.api('PUT', '/v1/me/mcp', f.key, { servers: {} })).status).toBe(400);
    expect((await client.api('GET', '/v1/me/mcp', f.key)).json).toEqual(document);

    const servers = (await client.api('GET', `/v1/sessions/${f.sessionId}/mcp`, f.key)).json.servers as Array<Record<string, unknown>>;
    const mine = servers.filter((s) => s.scope === 'user');
    expect(mine).toEqual([
      expect.objectContaining({ name: 'mine', state: 'ready', tools: expect.arrayContaining([expect.objectContaining({ name: 'mcp__mine__add' })]) }),
      expect.objectContaining({ name: 'far', state: 'refused', problem: expect.stringContaining('MCP_ALLOWED_HOSTS') }),
      expect.objectContaining({ name: 'demo', state: 'invalid', problem: expect.stringContaining('server scope') }),
    ]);
    const theirs = (await client.api('GET', `/v1/sessions/${other.sessionId}/mcp`, other.key)).json.servers as Array<Record<string, unknown>>;
    expect(theirs.filter((s) => s.scope === 'user')).toEqual([]);
    expect((await client.api('DELETE', '/v1/me/mcp', f.key)).status).toBe(204);
    expect((await client.api('GET', '/v1/me/mcp', f.key)).json).toEqual({ mcpServers: {} });
  });

  it("refuses a server whose name holds \"__\": a workspace's demo__x cannot pass its tools off as the demo server's that a rule allows", async () => {
    const workspaceFile = JSON.stringify({ mcpServers: { demo__x: { url: mcp.url.replace('/mcp', '/other'), headers: { authorization: `Bearer ${TOKEN}` } } } });
    const f = await client.fixture('mcp-lookalike', {}, { '.weft/mcp.json': workspaceFile });
    // The user trusts the admin's demo server with every tool.
    expect((await client.api('PUT', `/v1/permissions/session/${f.sessionId}`, f.key, { allow: ['mcp__demo'] })).status).toBe(200);
    script(f.sessionId, [{ calls: [{ name: 'mcp__demo__x__add', arguments: { a: 1, b: 2 } }] }, { text: 'stopped' }]);
    const before = mcp.calls.length;
    const events = await runTurn(f, 'add');
    expect(events.at(-1)?.type).toBe('turn.completed');
    expect(ofType(events, 'tool.completed')[0]).toMatchObject({ isError: true });
    expect(ofType(events, 'permission.decided').filter((e) => e.decision === 'allow')).toEqual([]);
    expect(mcp.calls.length).toBe(before);
    expect(ofType(events, 'mcp.server.unavailable').map((e) => [e.server, e.state])).toContainEqual(['demo__x', 'invalid']);
    const servers = (await client.api('GET', `/v1/sessions/${f.sessionId}/mcp`, f.key)).json.servers as Array<Record<string, unknown>>;
    expect(servers.find((s) => s.name === 'demo__x')).toMatchObject({ scope: 'workspace', state: 'invalid', problem: expect.stringContaining('no "__"'), tools: [] });

    const put = await client.api('PUT', '/v1/me/mcp', f.key, { mcpServers: { demo__x: { url: mcp.url } } });
    expect(put).toMatchObject({ status: 400, json: { error: { code: 'COMMON.VALIDATION_FAILED', message: expect.stringContaining('demo__x: a server name is') } } });
  });

  it('honours deny rules on a whole server', async () => {
    const f = await client.fixture('mcp-denier');
    const rules = await client.api('PUT', `/v1/permissions/session/${f.sessionId}`, f.key, { deny: ['mcp__demo'] });
    expect(rules.status).toBe(200);
    script(f.sessionId, [{ calls: [{ name: 'mcp__demo__fail', arguments: {} }] }, { text: 'refused' }]);
    const before = mcp.calls.length;
    const events = await runTurn(f, 'try it');
    expect(ofType(events, 'tool.completed')[0]).toMatchObject({ isError: true, output: expect.stringContaining('AGENT.PERMISSION_DENIED') });
    expect(mcp.calls.length).toBe(before);
  });
});
