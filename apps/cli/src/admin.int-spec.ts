import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest, ScriptedWorkersModule, script, type SessionFixture, sessionApi } from '../../../test/support/app-harnesses';
import { buildCli, weft } from './testing/built-cli';

/**
 * `weft usage` and `weft admin …`, the built CLI against the real gateway (in-process, on real
 * Redis and NATS, scripted workers: each generation reports 7 prompt and 3 completion tokens).
 */
let gateway: GatewayUnderTest;
let client: ReturnType<typeof sessionApi>;
let home: string;
/** Names are unique per gateway: one per test run. */
let runId = 0;

const today = () => new Date().toISOString().slice(0, 10);
const cells = (line: string | undefined) => (line ?? '').trim().split(/\s{2,}/);
const lineWith = (text: string, needle: string) => text.split('\n').find((line) => line.includes(needle));

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { XDG_CONFIG_HOME: join(home, 'config'), HOME: home, WEFT_URL: gateway.base, ...extra };
}
const asUser = (f: { key: string }) => env({ WEFT_KEY: f.key });
const asAdmin = () => env({ WEFT_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
const admin = (...args: string[]) => weft(['admin', ...args], asAdmin());

async function fixtureWithTurn(name: string): Promise<SessionFixture> {
  const f = await client.fixture(name);
  const ran = await weft(['run', 'hello', '--session', f.sessionId], asUser(f));
  expect(ran.code, ran.stderr).toBe(0);
  return f;
}

beforeAll(async () => {
  [gateway] = await Promise.all([startGatewayUnderTest(ScriptedWorkersModule, { INFERENCE_TIMEOUT_MS: '20000' }), buildCli()]);
  client = sessionApi(gateway.base);
});

afterAll(async () => {
  await gateway?.stop();
});

beforeEach(async (context) => {
  runId++;
  home = await mkdtemp(join(tmpdir(), 'weft-cli-admin-'));
  context.onTestFinished(() => rm(home, { recursive: true, force: true }));
});

describe('weft usage', () => {
  it("shows the user's usage per day and model after a turn, a totals line and their limits", async () => {
    const f = await fixtureWithTurn(`usage-${runId}`);
    const result = await weft(['usage'], asUser(f));

    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^usage from \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2} \(UTC days\)$/);
    expect(cells(lines[1])).toEqual(['date', 'model', 'turns', 'generations', 'prompt', 'cached', 'evaluated', 'completion', 'tool calls', 'sandbox runs', 'sandbox ms']);
    expect(cells(lines[2])).toEqual([today(), 'tiny', '1', '1', '7', '0', '7', '3', '0', '0', '0']);
    expect(cells(lines[3])).toEqual(['total', '1', '1', '7', '0', '7', '3', '0', '0', '0']);
    expect(lines[2]?.length).toBe(lines[1]?.length); // the counts are right-aligned under their headers
    expect(lines[4]).toBe('limits: 600 requests/min · 8 concurrent turns · tokens/day unlimited · sandbox s/day unlimited · weight 1 · 10 tokens used today');
  });

  it('filters by model and day, and prints the JSON with --json', async () => {
    const f = await fixtureWithTurn(`usage-json-${runId}`);
    const other = await weft(['usage', '--model', 'senior', '--from', today()], asUser(f));
    expect(other.stdout).toContain(`no usage from ${today()} to ${today()}`);

    const json = await weft(['usage', '--json'], asUser(f));
    expect(JSON.parse(json.stdout)).toMatchObject({
      usage: { to: today(), totals: { turns: 1, completionTokens: 3 }, rows: [{ date: today(), model: 'tiny', generations: 1 }] },
      limits: { limits: { weight: 1, requestsPerMinute: 600, concurrentTurns: 8, tokensPerDay: 0 }, tokensUsedToday: 10 },
    });
    const bad = await weft(['usage', '--from', 'yesterday'], asUser(f));
    expect(bad.code).toBe(2); // a wrong command line
    expect(bad.stderr).toContain("option '--from <YYYY-MM-DD>' argument 'yesterday' is invalid. not a day: use YYYY-MM-DD (UTC).");
  });

  it('says when to try again once a quota is spent', async () => {
    const f = await client.fixture(`usage-limited-${runId}`);
    expect((await admin('limits', f.userId, '--requests-per-minute', '1')).code).toBe(0);
    const refused = await weft(['usage'], asUser(f));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/\(QUOTA\.EXCEEDED\)\nhint: try again in \d+ s/);
  });
});

describe('weft admin', () => {
  it('names both ways to give the admin token when there is none, and says when it is refused', async () => {
    const missing = await weft(['admin', 'users'], env());
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('error: no admin token: pass --admin-token <token> or set WEFT_ADMIN_TOKEN');

    const wrong = await weft(['admin', 'users', '--admin-token', 'not-the-token'], env());
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('error: the gateway refused the admin token (Invalid admin token)');
    expect(wrong.stderr).not.toContain('weft login');

    const nowhere = await weft(['admin', 'users'], { HOME: home, XDG_CONFIG_HOME: join(home, 'config'), WEFT_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    expect(nowhere.stderr).toContain('error: no gateway URL: pass --url <gateway>, set WEFT_URL, or run `weft login` once');
  });

  it('creates a user, refuses a second of the same name with the gateway message, and lists users with their keys', async () => {
    const name = `ada-${runId}`;
    const created = await admin('create-user', name);
    expect(created.code, created.stderr).toBe(0);
    const userId = created.stdout.trim();
    expect(userId).toMatch(/^usr_/);

    const again = await admin('create-user', name.toUpperCase());
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`error: A user named "${name.toUpperCase()}" already exists (COMMON.CONFLICT)`);

    const key = (await admin('create-key', userId)).stdout.trim();
    // The URL saved by `weft login` serves `weft admin` too.
    expect((await weft(['login', '--url', gateway.base, '--key', key], env())).code).toBe(0);
    const listed = await weft(['admin', 'users', '--admin-token', TEST_ADMIN_TOKEN], { HOME: home, XDG_CONFIG_HOME: join(home, 'config') });
    expect(listed.code, listed.stderr).toBe(0);
    expect(cells(listed.stdout.split('\n')[0])).toEqual(['name', 'id', 'role', 'groups', 'disabled', 'keys', 'last key use']);
    const [, id, role, groups, disabled, keys, lastUse] = cells(lineWith(listed.stdout, userId));
    // Made by an admin, never signed in through an identity provider: no groups.
    expect({ id, role, groups, disabled, keys }).toEqual({ id: userId, role: 'member', groups: '-', disabled: 'no', keys: '1' });
    expect(lastUse).toMatch(new RegExp(`^${today()} \\d{2}:\\d{2}$`));
    expect(listed.stdout).not.toContain(key);
  });

  it('prints a new key once with its warning, named and expiring, shows it in the user and revokes it', async () => {
    const userId = (await admin('create-user', `grace-${runId}`)).stdout.trim();
    const created = await admin('create-key', userId, '--name', 'laptop', '--expires-in-days', '30');
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^weft_\S+$/);
    expect(created.stderr).toContain('this key is shown only once');
    const expires = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    expect(created.stderr).toContain(`(laptop) for ${userId}, expires ${expires}`);
    expect((await weft(['models'], env({ WEFT_KEY: key }))).code).toBe(0);

    const shown = await admin('user', userId);
    expect(shown.stdout).toContain(`grace-${runId}  ${userId}`);
    const [keyId, name, prefix, , expiry, lastUsed] = cells(lineWith(shown.stdout, 'laptop'));
    expect({ name, prefix, expiry: expiry?.slice(0, 10) }).toEqual({ name: 'laptop', prefix: `${key.slice(0, 12)}…`, expiry: expires });
    expect(lastUsed).not.toBe('never');
    expect(shown.stdout).not.toContain(key);

    expect((await admin('revoke-key', userId, keyId ?? '')).stdout).toContain(`revoked ${keyId} of ${userId}`);
    expect((await weft(['models'], env({ WEFT_KEY: key }))).stderr).toContain('(AUTH.UNAUTHORIZED)');
  });

  it('refuses a bad expiry: in the past, not a number, or given twice', async () => {
    const userId = (await admin('create-user', `expiry-${runId}`)).stdout.trim();
    const past = await admin('create-key', userId, '--expires', '2020-01-01T00:00:00Z');
    expect(past.code).toBe(1);
    expect(past.stderr).toContain('must be in the future');
    const days = await admin('create-key', userId, '--expires-in-days', 'soon');
    expect(days.stderr).toContain("option '--expires-in-days <n>' argument 'soon' is invalid. not a whole number.");
    const both = await admin('create-key', userId, '--expires', '2099-01-01T00:00:00Z', '--expires-in-days', '3');
    expect(both.stderr).toContain("option '--expires <iso>' cannot be used with option '--expires-in-days <n>'");
    expect((await admin('user', userId)).stdout).toContain('no keys');
  });

  it("disables a user, cancelling their running turn and refusing their key, and enables them again", async () => {
    const f = await client.fixture(`disabled-${runId}`);
    script(f.sessionId, [{ hang: true }]);
    await client.start(f, '/messages', { content: 'hang' });

    const disabled = await admin('disable', f.userId);
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(disabled.stdout).toContain(`disabled disabled-${runId} (${f.userId}): their keys are refused; 1 running turn cancelled`);
    const refused = await weft(['usage'], asUser(f));
    expect(refused.stderr).toContain(`is disabled; ask your admin (AUTH.FORBIDDEN)`);
    expect(cells(lineWith((await admin('users')).stdout, f.userId))[4]).toBe('yes'); // name, id, role, groups, disabled

    const enabled = await admin('enable', f.userId);
    expect(enabled.stdout).toContain(`enabled disabled-${runId} (${f.userId}): their keys work again`);
    expect((await weft(['usage'], asUser(f))).code).toBe(0);
  });

  it('shows limits, lays the given ones over the current overrides, and resets them', async () => {
    const f = await client.fixture(`limits-${runId}`);
    const shown = await admin('limits', f.userId);
    expect(shown.code, shown.stderr).toBe(0);
    expect(cells(lineWith(shown.stdout, 'requests/min'))).toEqual(['requests/min', '600', '-', '600']);
    expect(cells(lineWith(shown.stdout, 'tokens/day'))).toEqual(['tokens/day', 'unlimited', '-', 'unlimited']);
    expect(shown.stdout).toContain('tokens used today: 0');

    expect((await admin('limits', f.userId, '--concurrent-turns', '2', '--weight', '3')).code).toBe(0);
    const merged = await admin('limits', f.userId, '--tokens-per-day', '5000');
    expect(cells(lineWith(merged.stdout, 'concurrent turns'))).toEqual(['concurrent turns', '8', '2', '2']);
    expect(cells(lineWith(merged.stdout, 'weight'))).toEqual(['weight', '1', '3', '3']);
    expect(cells(lineWith(merged.stdout, 'tokens/day'))).toEqual(['tokens/day', 'unlimited', '5000', '5000']);
    expect((await weft(['usage'], asUser(f))).stdout).toContain('limits: 600 requests/min · 2 concurrent turns · 5000 tokens/day · sandbox s/day unlimited · weight 3 · 0 tokens used today');

    const reset = await admin('limits', f.userId, '--reset');
    expect(cells(lineWith(reset.stdout, 'weight'))).toEqual(['weight', '1', '-', '1']);
    expect(cells(lineWith(reset.stdout, 'concurrent turns'))).toEqual(['concurrent turns', '8', '-', '8']);

    expect((await admin('limits', f.userId, '--weight', 'heavy')).stderr).toContain("option '--weight <n>' argument 'heavy' is invalid. not a whole number.");
    expect((await admin('limits', f.userId, '--reset', '--weight', '2')).stderr).toContain("option '--reset' cannot be used with option '--weight <n>'");
    expect((await admin('limits', f.userId, '--weight', '0')).stderr).toContain('(COMMON.VALIDATION');
    expect((await admin('limits', 'usr_nobody123')).stderr).toContain('User usr_nobody123 not found');
  });

  it("prints every user's usage as a table with a user column, or as CSV", async () => {
    const f = await fixtureWithTurn(`usage-admin-${runId}`);
    const table = await admin('usage', '--user', f.userId);
    expect(table.code, table.stderr).toBe(0);
    expect(cells(table.stdout.split('\n')[1])).toEqual(['date', 'user', 'model', 'turns', 'generations', 'prompt', 'cached', 'evaluated', 'completion', 'tool calls', 'sandbox runs', 'sandbox ms']);
    expect(cells(lineWith(table.stdout, f.userId))).toEqual([today(), f.userId, 'tiny', '1', '1', '7', '0', '7', '3', '0', '0', '0']);

    const csv = await admin('usage', '--user', f.userId, '--from', today(), '--csv');
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.trim().split('\n')).toEqual([
      'date,userId,model,turns,generations,promptTokens,cachedTokens,evaluatedTokens,completionTokens,toolCalls,sandboxRuns,sandboxMs',
      `${today()},${f.userId},tiny,1,1,7,0,7,3,0,0,0`,
    ]);
  });

  it('deletes a user only with their name typed again, and says what went with them', async () => {
    const f = await fixtureWithTurn(`leaving-${runId}`);
    const { json } = await client.api('GET', '/v1/me', f.key);
    const name = String(json.name);
    const wrong = await admin('delete-user', f.userId, '--confirm', 'someone else');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`{"confirm": "${name}"}`);
    const deleted = await admin('delete-user', f.userId, '--confirm', name);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toContain(`deleted ${name} (${f.userId}): 1 sessions, 1 workspaces, 1 keys`);
    expect((await client.api('GET', '/v1/me', f.key)).status).toBe(401);
  });
});

describe('weft workspace', () => {
  it('pushes a folder under its name, lists, renames and deletes workspaces', async () => {
    const f = await client.fixture(`ws-owner-${runId}`);
    const dir = join(home, 'my-project');
    await mkdir(dir);
    await writeFile(join(dir, 'main.py'), 'print("hi")\n');
    const pushed = await weft(['workspace', 'push', dir], asUser(f));
    expect(pushed.code, pushed.stderr).toBe(0);
    const id = pushed.stdout.trim();

    const listed = await weft(['workspace', 'list'], asUser(f));
    expect(listed.code, listed.stderr).toBe(0);
    expect(cells(listed.stdout.split('\n')[0])).toEqual(['name', 'id', 'files', 'size', 'last used']);
    expect(cells(lineWith(listed.stdout, id))[0]).toBe('my-project');

    expect((await weft(['workspace', 'rename', id, 'old project'], asUser(f))).code).toBe(0);
    expect(cells(lineWith((await weft(['workspace', 'list'], asUser(f))).stdout, id))[0]).toBe('old project');
    const deleted = await weft(['workspace', 'delete', id], asUser(f));
    expect(deleted.code, deleted.stderr).toBe(0);
    expect((await weft(['workspace', 'list'], asUser(f))).stdout).not.toContain(id);
    const again = await weft(['workspace', 'delete', id], asUser(f));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`Workspace ${id} not found`);
  });
});

/**
 * Admin users and the bootstrap token. Last in the file and in order: once the token is rotated,
 * TEST_ADMIN_TOKEN (and the fixtures above) no longer work.
 */
describe('weft admin as an admin user, and the bootstrap token', () => {
  let bossHome: string;
  let boss: { id: string; key: string; name: string };
  let bootstrap: string;
  /** The admin who set up with `weft setup`, through the key it saved. */
  const asBoss = (...args: string[]) => weft(['admin', ...args], { HOME: bossHome, XDG_CONFIG_HOME: join(bossHome, 'config') });

  afterAll(async () => {
    if (bossHome) await rm(bossHome, { recursive: true, force: true });
  });

  it("makes the first user an admin in `weft setup`, whose saved key then runs `weft admin`", async () => {
    bossHome = await mkdtemp(join(tmpdir(), 'weft-cli-boss-'));
    const name = `boss-${runId}`;
    const bossEnv = { HOME: bossHome, XDG_CONFIG_HOME: join(bossHome, 'config'), WEFT_ADMIN_TOKEN: TEST_ADMIN_TOKEN };
    const setup = await weft(['setup', '--yes', '--url', gateway.base, '--name', name], bossEnv);
    expect(setup.stdout).toMatch(new RegExp(`^✓ created user ${name} \\(usr_\\S+\\) and a key`, 'm'));
    expect(setup.stdout).toContain(`${name} is an admin: \`weft admin\` works with this key`);
    const saved = JSON.parse(await readFile(join(bossHome, 'config', 'weft', 'config.json'), 'utf8')) as { key: string };
    const me = await client.api('GET', '/v1/me', saved.key);
    expect(me.json).toMatchObject({ name, role: 'admin' });
    boss = { id: String(me.json.id), key: saved.key, name };

    const listed = await asBoss('users');
    expect(listed.code, listed.stderr).toBe(0);
    expect(cells(lineWith(listed.stdout, boss.id)).slice(1, 3)).toEqual([boss.id, 'admin']);
    const created = await asBoss('create-user', `dev-${runId}`);
    expect(created.stderr).toContain(`created member dev-${runId}`);
    const devId = created.stdout.trim();
    const devKey = (await asBoss('create-key', devId)).stdout.trim();
    const refused = await weft(['admin', 'users'], env({ WEFT_KEY: devKey }));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`error: User dev-${runId} is a member, not an admin: admin routes take an admin user's key or the bootstrap token (AUTH.ADMIN_REQUIRED)`);

    const promoted = await asBoss('role', devId, 'admin');
    expect(promoted.stdout).toContain(`dev-${runId} (${devId}) is now an admin: their keys manage this gateway`);
    expect((await weft(['admin', 'users'], env({ WEFT_KEY: devKey }))).code).toBe(0);
    expect((await asBoss('role', devId, 'member')).stdout).toContain('is now a member');
    expect((await asBoss('role', devId, 'owner')).stderr).toContain("error: command-argument value 'owner' is invalid for argument 'role'. Allowed choices are admin, member.");
    expect((await asBoss('user', devId)).stdout).toContain(`dev-${runId}  ${devId}  member`);

    const audit = await client.api('GET', '/v1/admin/audit?limit=2', boss.key);
    expect(audit.json.entries).toMatchObject([
      { action: 'role.set', actor: boss.id, userId: devId, details: { role: 'member', previous: 'admin' } },
      { action: 'role.set', actor: boss.id, userId: devId, details: { role: 'admin', previous: 'member' } },
    ]);
  });

  it('rotates the bootstrap token and prints it once; the one before is refused at once', async () => {
    const rotated = await admin('rotate-token');
    expect(rotated.code, rotated.stderr).toBe(0);
    bootstrap = rotated.stdout.trim();
    expect(bootstrap).toMatch(/^weft_bootstrap_\S{43}$/);
    expect(rotated.stderr).toContain('this token is shown only once');
    expect(rotated.stderr).toContain('WEFT_ADMIN_TOKEN included');

    const old = await admin('users');
    expect(old.code).toBe(1);
    expect(old.stderr).toContain('error: the gateway refused the admin token (WEFT_ADMIN_TOKEN was replaced by a rotated bootstrap token on');
    expect((await weft(['admin', 'users', '--admin-token', bootstrap], env())).code).toBe(0);
    const state = await asBoss('bootstrap-token');
    expect(state.stdout).toMatch(/^bootstrap token: the token rotated at \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(WEFT_ADMIN_TOKEN is refused\)$/m);
    expect(state.stdout).toContain('enabled admin users: 1');
  });

  it('turns the bootstrap token off only while an admin user exists, and then keeps the last admin', async () => {
    const withToken = (...args: string[]) => weft(['admin', ...args], env({ WEFT_ADMIN_TOKEN: bootstrap }));
    expect((await withToken('role', boss.id, 'member')).code).toBe(0);
    const refused = await withToken('bootstrap-token', 'off');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('no enabled admin user exists, so no one could administer this gateway');
    expect(refused.stderr).toContain('(AUTH.LAST_ADMIN)');

    expect((await withToken('role', boss.id, 'admin')).code).toBe(0);
    const off = await asBoss('bootstrap-token', 'off');
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toMatch(/^✓ bootstrap token: off since .+ UTC: only admin users' keys manage this gateway$/m);
    expect((await withToken('users')).stderr).toContain('(Invalid admin token)');

    const demote = await asBoss('role', boss.id, 'member');
    expect(demote.code).toBe(1);
    expect(demote.stderr).toContain(`Refusing to demote ${boss.name} (${boss.id}): they are the last enabled admin user and the bootstrap token is off`);
    expect((await asBoss('disable', boss.id)).stderr).toContain('(AUTH.LAST_ADMIN)');
    expect((await asBoss('users')).code).toBe(0);
  });
});
