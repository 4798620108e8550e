import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest, ScriptedModelModule, sessionApi, type SandboxHarness, startSandboxHarness, makeTempDir, makeTestModel, removeDir, startWorker } from '../../../test/support/app-harnesses';
import { startModelFileServer } from '../../../test/support/model-file-server';
import { buildCli, weft, weftCommandLine } from './testing/built-cli';
import { startInTmux } from './testing/tmux';

/**
 * `weft setup`, the built CLI against the real gateway (in-process, on real Redis and NATS, the
 * scripted model worker): first with no sandbox worker on NATS, then with a real one on the real
 * Docker engine, and last with NATS stopped.
 */
let gateway: GatewayUnderTest;
let client: ReturnType<typeof sessionApi>;
let sandbox: SandboxHarness | undefined;
let home: string;
/** User names are unique per gateway: one per test. */
let testId = 0;

const configPath = () => join(home, 'config', 'weft', 'config.json');
const savedConfig = async () => JSON.parse(await readFile(configPath(), 'utf8')) as { url: string; key: string };
const env = (extra: Record<string, string> = {}) => ({ XDG_CONFIG_HOME: join(home, 'config'), HOME: home, ...extra });
const setup = (args: string[], extra: Record<string, string> = {}, input?: string) => weft(['setup', ...args], env(extra), input);

async function userKey(name: string): Promise<{ userId: string; key: string }> {
  const user = await client.api('POST', '/v1/admin/users', TEST_ADMIN_TOKEN, { name });
  const userId = String(user.json.id);
  return { userId, key: String((await client.api('POST', `/v1/admin/users/${userId}/keys`, TEST_ADMIN_TOKEN)).json.key) };
}

/** A port nothing listens on: one the kernel just handed out and that was closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  [gateway] = await Promise.all([startGatewayUnderTest(ScriptedModelModule), buildCli()]);
  client = sessionApi(gateway.base);
});

afterAll(async () => {
  await sandbox?.close();
  await gateway?.stop();
});

beforeEach(async (context) => {
  testId++;
  home = await mkdtemp(join(tmpdir(), 'weft-cli-setup-'));
  context.onTestFinished(() => rm(home, { recursive: true, force: true }));
});

describe('weft setup without a sandbox worker', () => {
  it("passes the other checks, saves the key, and fails the sandbox check with the gateway's error", async () => {
    const { key } = await userKey(`ada-${testId}`);
    const result = await setup(['--yes', '--url', gateway.base, '--key', key]);

    expect(result.code, result.stderr).toBe(1);
    const lines = result.stdout.split('\n');
    expect(lines).toContain(`✓ gateway at ${gateway.base} is ready (Redis up · NATS up)`);
    expect(lines).toContain(`✓ key accepted: you are ada-${testId} (${(await client.api('GET', '/v1/me', key)).json.id as string})`);
    expect(lines).toContain(`✓ saved the gateway and key to ${configPath()}`);
    expect(lines).toContain('✓ 3 models on offer');
    expect(lines).toContain('    scripted  tiny (context 4096), senior (context 4096, senior), junior (context 4096, junior)');
    expect(lines).toContain('✗ the sandbox cannot run commands: No worker is listening on weft.sandbox.v1.exec (TRANSPORT.NO_RESPONDERS)');
    expect(result.stdout).toContain('1 check failed:\n  sandbox: no sandbox worker answered: start it (`docker compose up -d sandbox`)');
    expect(result.stdout).toContain('The key is saved;');
    expect(await savedConfig()).toEqual({ url: gateway.base, key });
  });

  it('fails with a clear message and saves nothing when the key is wrong', async () => {
    const result = await setup(['--yes', '--url', gateway.base, '--key', 'weft_not-a-key']);

    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✗ the gateway refused the key (--key): Invalid API key (AUTH.UNAUTHORIZED)');
    expect(result.stdout).toContain('– models not checked: no working key');
    expect(result.stdout).toContain('  key: ask your admin for a key (`weft admin create-key <user>`) and run `weft setup --key <key>`');
    await expect(stat(configPath())).rejects.toThrow(/ENOENT/);
  });

  it('says what is missing under --yes instead of asking, and when the gateway is not there', async () => {
    const noKey = await setup(['--yes'], { WEFT_URL: gateway.base });
    expect(noKey.code).toBe(1);
    expect(noKey.stdout).toContain('✗ no API key given\n');
    expect(noKey.stdout).toContain('  key: pass --key <key> or set WEFT_KEY; as the gateway admin, pass --admin-token (or set WEFT_ADMIN_TOKEN) to make one');

    const closed = `http://127.0.0.1:${await closedPort()}`;
    const nowhere = await setup(['--yes', '--url', closed, '--key', 'weft_x']);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stdout).toContain(`✗ cannot reach the Weft gateway at ${closed}: connection refused (is the gateway running?)`);
    expect(nowhere.stdout).toContain('  gateway: start it (`docker compose up -d`), or pass its address: weft setup --url <gateway>');
    expect(nowhere.stdout).not.toContain('key');
  });
});

describe('weft setup with a sandbox worker', () => {
  beforeAll(async () => {
    sandbox = await startSandboxHarness(gateway.natsUrl, { SANDBOX_POOL_SIZE: '0' });
  });

  it('passes every check, writes the config readable by its owner alone, and says what to do next', async () => {
    const { key } = await userKey(`ada-${testId}`);
    const result = await setup(['--yes', '--url', gateway.base, '--key', key]);

    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^✓ the sandbox runs commands \(`true` took \d+ ms\)$/m);
    expect(result.stdout).not.toContain('✗');
    expect(result.stdout).toContain('Weft is ready. Next, in a project folder:\n  weft run "summarise this project" --model tiny');
    expect(await savedConfig()).toEqual({ url: gateway.base, key });
    expect((await stat(configPath())).mode & 0o777).toBe(0o600);
    // The saved login serves the other commands.
    const models = await weft(['models'], env());
    expect(models.code, models.stderr).toBe(0);
  });

  it('makes the first user and a key with the admin token, stores the key, and reuses a taken name', async () => {
    const name = `grace-${testId}`;
    const first = await setup(['--yes', '--url', gateway.base, '--name', name], { WEFT_ADMIN_TOKEN: TEST_ADMIN_TOKEN });

    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`^✓ created user ${name} \\(usr_\\S+\\) and a key \\(key_\\S+, "weft setup on .+"\\)$`, 'm'));
    expect(first.stdout).toContain(`✓ key accepted: you are ${name}`);
    const { key } = await savedConfig();
    expect((await client.api('GET', '/v1/me', key)).json.name).toBe(name);

    const again = await setup(['--yes', '--url', gateway.base, '--name', name, '--key', 'weft_revoked', '--admin-token', TEST_ADMIN_TOKEN]);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('! the gateway refused the key (--key): Invalid API key (AUTH.UNAUTHORIZED)');
    expect(again.stdout).toMatch(new RegExp(`^✓ user ${name} \\(usr_\\S+\\) already existed: made a new key for them`, 'm'));
    expect((await savedConfig()).key).not.toBe(key);

    // The saved key works, so a wrong one is given to reach the admin token.
    const refused = await setup(['--yes', '--url', gateway.base, '--key', 'weft_wrong', '--name', `x-${testId}`, '--admin-token', 'not-the-token']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('✗ could not make a user and key: the gateway refused the admin token (Invalid admin token)');
  });

  it('asks for the gateway and the key, and as the admin makes a key after the typed one is refused', async () => {
    const { key } = await userKey(`ada-${testId}`);
    const asked = await setup([], {}, `${gateway.base}\n${key}\n`);
    expect(asked.code, asked.stdout + asked.stderr).toBe(0);
    expect(asked.stderr).toContain('? gateway URL: [http://localhost:8080]');
    expect(asked.stderr).toContain("? your API key (weft_…; not shown as you type), or Enter if you are this gateway's admin and want to make one:");
    expect(await savedConfig()).toEqual({ url: gateway.base, key });

    const name = `lin-${testId}`;
    const admin = await setup(['--url', gateway.base, '--key', 'weft_wrong'], {}, `y\n${TEST_ADMIN_TOKEN}\n${name}\n`);
    expect(admin.code, admin.stdout + admin.stderr).toBe(0);
    expect(admin.stderr).toContain("? are you this gateway's admin (you have its WEFT_ADMIN_TOKEN) and want to make a user and key? [y/N]");
    expect(admin.stdout).toMatch(new RegExp(`^✓ created user ${name} `, 'm'));
    expect(admin.stderr).not.toContain(TEST_ADMIN_TOKEN);

    const declined = await setup(['--url', gateway.base, '--key', 'weft_wrong'], {}, 'n\n');
    expect(declined.code).toBe(1);
    expect(declined.stdout).toContain('✗ no working key, and no admin token to make one');
    expect(declined.stdout).toContain('  key: ask your admin for a key (`weft admin create-key <user>`) and run `weft setup --key <key>`');
  });
});

describe('weft setup at a terminal', () => {
  it('does not show a pasted key as it is typed, and saves it', async () => {
    const { key } = await userKey(`tty-${testId}`);
    const pane = await startInTmux(weftCommandLine(['setup', '--url', gateway.base]), env(), home);
    try {
      const shown = (text: string) =>
        vi.waitFor(
          async () => {
            const screen = await pane.screen();
            if (!screen.includes(text)) throw new Error(`the pane does not show ${text}; it shows:\n${screen}`);
            return screen;
          },
          { timeout: 30_000, interval: 100 },
        );
      await shown('? your API key (weft_…; not shown as you type)');
      await pane.typeLine(key);
      const screen = await shown('[exit ');
      expect(screen).toContain(`✓ key accepted: you are tty-${testId}`);
      expect(screen).not.toContain(key);
      expect(screen).not.toContain(key.slice(0, 12));
      expect(await savedConfig()).toEqual({ url: gateway.base, key });
    } finally {
      await pane.close();
    }
  });
});

describe('weft setup as the admin, with an inference worker', () => {
  it('offers coding models sized to the host, pulls the one given, and names it in the next steps', async () => {
    const dir = await makeTempDir('weft-setup-models-');
    const server = await startModelFileServer(await makeTestModel(dir, 'setup-coder.gguf'), 'setup-coder.gguf');
    const worker = await startWorker(gateway.natsUrl, dir, { models: [] });
    try {
      const url = `${server.base}/files/setup-coder.gguf`;
      const name = `pat-${testId}`;
      const result = await setup(['--url', gateway.base, '--name', name], { WEFT_ADMIN_TOKEN: TEST_ADMIN_TOKEN }, `${url}\n`);

      expect(result.stdout).toMatch(new RegExp(`^✓ created user ${name} `, 'm'));
      expect(result.stdout).toMatch(/^! no model pulled yet \(the stack's demo model tiny has random weights: its answers are noise\)\. Coding models for the (GPU|RAM of this machine) \(/m);
      expect(result.stdout).toMatch(/^ {4}1\) qwen\S+ +\d+\.\d GB {2}\S/m);
      expect(result.stderr).toContain('? pull one now? ');
      expect(result.stderr).toContain(`pulling setup-coder.gguf as "setup-coder" from ${url}`);
      expect(result.stderr).toContain('download 505.4 KiB of 505.4 KiB (100%)');
      expect(result.stdout).toContain(`✓ pulled "setup-coder": setup-coder.gguf, 505.4 KiB, sha256 ${server.sha256}`);
      // The models check comes after the pull, and sees the pulled model.
      expect(result.stdout).toContain('✓ 1 model on offer');
      expect(result.stdout).toContain('weft run "summarise this project" --model setup-coder');
      expect((await client.api('GET', '/v1/admin/models', TEST_ADMIN_TOKEN)).json).toMatchObject({ models: [expect.objectContaining({ id: 'setup-coder', origin: 'pulled' })] });

      expect((await weft(['models'], env())).stdout).toMatch(/^setup-coder {2}llama · context \d+$/m);
      // A removed model is gone from the next listing.
      const removed = await weft(['admin', 'models', 'remove', 'setup-coder'], env({ WEFT_ADMIN_TOKEN: TEST_ADMIN_TOKEN }));
      expect(removed.code, removed.stderr).toBe(0);
      expect((await weft(['models', '--all'], env())).stdout).not.toContain('setup-coder');
    } finally {
      await worker.close();
      await server.close();
      await removeDir(dir);
    }
  });
});

describe('weft setup when the gateway is not ready', () => {
  it('names the dependency that is down', async () => {
    await sandbox?.close();
    sandbox = undefined;
    await gateway.stopNats();
    const result = await setup(['--yes', '--url', gateway.base, '--key', 'weft_x']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`✗ gateway at ${gateway.base} answers but is not ready: NATS is down`);
    expect(result.stdout).toContain("  gateway: the gateway cannot reach NATS: check that it runs (`docker compose ps`) and the gateway's REDIS_URL / NATS_URL");
  });
});
