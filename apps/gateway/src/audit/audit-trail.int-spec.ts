import type { AuditEntry, StoredSessionEvent } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from '../test/gateway-under-test';
import { ScriptedWorkersModule, script } from '../test/scripted-workers';
import { type SessionFixture, ofType, sessionApi, turnEnded } from '../test/session-api';

/** The audit trail admins read, on real Redis and NATS: a scripted turn's tool calls, with who decided and how each ended. */
let gateway: GatewayUnderTest;
let client: ReturnType<typeof sessionApi>;
const bash = (command: string) => ({ name: 'run_command', arguments: { command } });
const audit = async (query: string, token = TEST_ADMIN_TOKEN) => {
  const answer = await client.api('GET', `/v1/admin/audit?${query}`, token);
  return { ...answer, entries: (answer.json as { entries?: AuditEntry[] }).entries ?? [], next: answer.json.next as string | undefined };
};

beforeAll(async () => {
  gateway = await startGatewayUnderTest(ScriptedWorkersModule, {
    INFERENCE_TIMEOUT_MS: '20000',
    PERMISSIONS_SERVER_RULES: JSON.stringify({ allow: ['Bash(make test:*)'], deny: ['Bash(shutdown:*)'] }),
  });
  client = sessionApi(gateway.base);
});

afterAll(async () => {
  await gateway?.stop();
});

/** One turn: a call a rule allows, one a rule denies, one the user allows when asked. */
async function auditedTurn(name: string): Promise<SessionFixture> {
  const f = await client.fixture(name);
  script(f.sessionId, [
    { calls: [bash('make test'), bash('shutdown now')] },
    { calls: [bash('make deploy API_TOKEN=hunter2hunter2')] },
    { text: 'deployed' },
  ]);
  const { after } = await client.start(f, '/messages', { content: 'test and deploy' });
  const asked = await client.follow(f, after, (e) => e.type === 'permission.requested');
  const requestId = ofType(asked, 'permission.requested')[0]?.requestId;
  expect((await client.api('POST', `/v1/sessions/${f.sessionId}/permissions/${requestId}`, f.key, { decision: 'allow_once' })).status).toBe(200);
  const rest: StoredSessionEvent[] = await client.follow(f, asked.at(-1)?.id ?? after, turnEnded);
  expect(rest.at(-1)?.type).toBe('turn.completed');
  return f;
}

describe('the audit trail', () => {
  let f: SessionFixture;
  beforeAll(async () => {
    f = await auditedTurn('audited-dev');
  });

  it("holds each tool call with who, session, tool, arguments, decision and outcome, secrets masked", async () => {
    const { status, entries } = await audit(`session=${f.sessionId}`);
    expect(status).toBe(200);
    const base = { kind: 'tool', actor: f.userId, sessionId: f.sessionId, action: 'run_command' };
    expect(entries).toEqual([
      expect.objectContaining({ ...base, args: 'command="make deploy API_TOKEN=***"', decision: 'allow', decidedBy: 'user', decider: f.userId, outcome: 'ok', exitCode: 0 }),
      expect.objectContaining({ ...base, args: 'command="shutdown now"', decision: 'deny', decidedBy: 'policy', rule: 'Bash(shutdown:*)', scope: 'server', outcome: 'denied', errorCode: 'AGENT.PERMISSION_DENIED' }),
      expect.objectContaining({ ...base, args: 'command="make test"', decision: 'allow', decidedBy: 'policy', rule: 'Bash(make test:*)', scope: 'server', outcome: 'ok', exitCode: 0 }),
    ]);
    expect(JSON.stringify(entries)).not.toContain('hunter2');
  });

  it('filters by user, kind, action and time, and pages newest first', async () => {
    const other = await client.fixture('unaudited-dev');
    expect((await audit(`user=${other.userId}&kind=tool`)).entries).toEqual([]);
    expect((await audit(`user=${f.userId}&kind=tool`)).entries).toHaveLength(3);
    const admin = await audit(`user=${f.userId}&kind=admin`);
    expect(admin.entries.map((e) => e.action)).toEqual(['key.created', 'user.created']);
    expect(admin.entries[0]).toMatchObject({ kind: 'admin', actor: 'bootstrap', userId: f.userId });
    expect((await audit(`session=${f.sessionId}&action=write_file`)).entries).toEqual([]);
    expect((await audit(`session=${f.sessionId}&to=2000-01-01`)).entries).toEqual([]);
    const from = (await audit(`session=${f.sessionId}`)).entries.at(-1)?.at ?? '';
    expect((await audit(`session=${f.sessionId}&from=${from}&to=${new Date().toISOString()}`)).entries).toHaveLength(3);

    const first = await audit(`user=${f.userId}&limit=2`);
    expect(first.entries.map((e) => e.args)).toEqual(['command="make deploy API_TOKEN=***"', 'command="shutdown now"']);
    const second = await audit(`user=${f.userId}&limit=2&before=${first.next}`);
    expect(second.entries.map((e) => e.args ?? e.action)).toEqual(['command="make test"', 'key.created']);
    const third = await audit(`user=${f.userId}&limit=2&before=${second.next}`);
    expect(third.entries.map((e) => e.action)).toEqual(['user.created']);
    expect(third.next).toBeUndefined();
  });

  it('is for admins only, and refuses a malformed filter', async () => {
    expect((await audit('', f.key)).status).toBe(403);
    expect((await audit('')).status).toBe(200);
    expect(await audit('from=yesterday')).toMatchObject({ status: 400 });
    expect(await audit('kind=everything')).toMatchObject({ status: 400 });
  });

  it("keeps a deleted user's tool calls: the audit trail is the company's record", async () => {
    const gone = await auditedTurn('leaver');
    const deleted = await client.api('DELETE', `/v1/admin/users/${gone.userId}`, TEST_ADMIN_TOKEN, { confirm: 'leaver' });
    expect(deleted.status).toBe(200);
    expect((await audit(`session=${gone.sessionId}`)).entries).toHaveLength(3);
    expect((await audit(`user=${gone.userId}&kind=admin`)).entries[0]).toMatchObject({ action: 'user.deleted' });
  });
});
