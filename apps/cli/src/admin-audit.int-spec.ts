import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEntry } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest, ScriptedWorkersModule, script, type SessionFixture, sessionApi } from '../../../test/support/app-harnesses';
import { buildCli, weft } from './testing/built-cli';

/** `weft admin audit`, the built CLI against the real gateway (in-process, on real Redis and NATS, scripted workers). */
let gateway: GatewayUnderTest;
let client: ReturnType<typeof sessionApi>;
let home: string;
let f: SessionFixture;

const cells = (line: string | undefined) => (line ?? '').trim().split(/\s{2,}/);
const env = (extra: Record<string, string>) => ({ XDG_CONFIG_HOME: join(home, 'config'), HOME: home, WEFT_URL: gateway.base, ...extra });
const admin = (...args: string[]) => weft(['admin', ...args], env({ WEFT_ADMIN_TOKEN: TEST_ADMIN_TOKEN }));
const bash = (command: string) => ({ name: 'run_command', arguments: { command } });

beforeAll(async () => {
  [gateway] = await Promise.all([
    startGatewayUnderTest(ScriptedWorkersModule, { INFERENCE_TIMEOUT_MS: '20000', PERMISSIONS_SERVER_RULES: JSON.stringify({ allow: ['Bash(make test:*)'], deny: ['Bash(shutdown:*)'] }) }),
    buildCli(),
  ]);
  client = sessionApi(gateway.base);
  home = await mkdtemp(join(tmpdir(), 'weft-cli-audit-'));
  f = await client.fixture('audit-cli-dev');
  script(f.sessionId, [{ calls: [bash('make test'), bash('shutdown now')] }, { text: 'done' }]);
  const { after } = await client.start(f, '/messages', { content: 'test it' });
  await client.follow(f, after);
});

afterAll(async () => {
  await gateway?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('weft admin audit', () => {
  it("shows a session's tool calls as a table: who, session, tool, arguments, decision, outcome", async () => {
    const result = await admin('audit', '--session', f.sessionId);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(cells(lines[0])).toEqual(['time (UTC)', 'user', 'session', 'action', 'what', 'decision', 'outcome']);
    expect(cells(lines[1]).slice(1)).toEqual([f.userId, f.sessionId, 'run_command', 'command="shutdown now"', 'deny by rule Bash(shutdown:*)', 'denied']);
    expect(cells(lines[2]).slice(1)).toEqual([f.userId, f.sessionId, 'run_command', 'command="make test"', 'allow by rule Bash(make test:*)', 'ok (exit 0)']);
    expect(lines).toHaveLength(3);
  });

  it("exports a user's whole trail as JSONL, admin actions on them included, and pages with --limit", async () => {
    const result = await admin('audit', '--user', f.userId, '--all', '--format', 'jsonl');
    expect(result.code, result.stderr).toBe(0);
    const entries = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as AuditEntry);
    expect(entries.map((e) => `${e.kind} ${e.action}`)).toEqual(['tool run_command', 'tool run_command', 'admin key.created', 'admin user.created']);
    const one = await admin('audit', '--user', f.userId, '--kind', 'admin', '--limit', '1', '--json');
    expect(JSON.parse(one.stdout)).toEqual([expect.objectContaining({ kind: 'admin', action: 'key.created', userId: f.userId })]);
    const none = await admin('audit', '--session', f.sessionId, '--to', '2000-01-01');
    expect(none.stdout).toContain('nothing in the audit trail matches');
  });

  it("refuses a member's key", async () => {
    const result = await weft(['admin', 'audit'], env({ WEFT_KEY: f.key }));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/admin|403|forbidden/i);
  });
});
