import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { list } from 'tar';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseShellWords } from 'shell-quote';
import { buildCli, startWeft, weft } from './testing/built-cli';
import { askingTurn, completedTurn, failedTurn, hangingTurn, waitingForAnswerTurn, writingTurn, writingTurnPatch } from './testing/fixtures';
import { startStubGateway, type StubGateway } from './testing/stub-gateway';

const KEY = 'weft_test';

// Every test starts the built CLI (about a second each on a busy 2-core machine), some of them several times.
describe('the weft command', { timeout: 30_000 }, () => {
  let gateway: StubGateway | undefined;
  let home: string;
  let env: Record<string, string>;

  beforeAll(buildCli, 60_000);

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'weft-cli-e2e-'));
    env = { XDG_CONFIG_HOME: join(home, 'config'), HOME: home };
  });
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
    await rm(home, { recursive: true, force: true });
  });

  async function project(): Promise<string> {
    const dir = join(home, 'project');
    await mkdir(join(dir, 'node_modules/dep'), { recursive: true });
    await mkdir(join(dir, '.git'), { recursive: true });
    await mkdir(join(dir, 'src'), { recursive: true });
    await writeFile(join(dir, 'a.txt'), 'hello\n');
    await writeFile(join(dir, 'src/b.ts'), 'export {};\n');
    await writeFile(join(dir, 'node_modules/dep/index.js'), '');
    await writeFile(join(dir, '.git/HEAD'), 'ref: refs/heads/main\n');
    return dir;
  }

  async function entries(archive: Buffer): Promise<string[]> {
    const file = join(home, 'upload.tar.gz');
    await writeFile(file, archive);
    const paths: string[] = [];
    list({ file, sync: true, onReadEntry: (entry) => paths.push(entry.path) });
    return paths;
  }

  it('prints help with every command', async () => {
    const result = await weft(['--help'], env);
    expect(result.code).toBe(0);
    for (const command of ['login', 'models', 'workspace', 'run', 'chat', 'sessions', 'apply', 'export', 'instructions', 'usage', 'admin']) {
      expect(result.stdout).toContain(command);
    }
  });

  it('tells you to log in first', async () => {
    const result = await weft(['models'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('not logged in: run `weft login');
  });

  it('runs a task end to end and exits 0 when the turn completes', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [completedTurn] });
    const result = await weft(['run', 'read a.txt', '--dir', await project()], { ...env, WEFT_URL: gateway.url, WEFT_KEY: KEY });

    expect(result.stderr).not.toContain('error');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Let me look.\n● read_file(path="a.txt")\n  ⎿ hello\n    world\n');
    expect(result.stdout).toContain('  ⎿ exit 1: test failed\n');
    expect(result.stdout).toContain('Done.\n✓ done · 3 steps · 10 prompt + 5 completion tokens\n');
    expect(result.stderr).toContain('weft chat --session ses_1');
    const uploaded = await entries(gateway.uploads[0] ?? Buffer.alloc(0));
    expect(uploaded).toEqual(expect.arrayContaining(['a.txt', 'src/b.ts']));
    expect(uploaded.filter((path) => /node_modules|\.git/.test(path))).toEqual([]);
  });

  it('creates the session on the sandbox image --image names', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [completedTurn] });
    const result = await weft(['run', 'read a.txt', '--dir', await project(), '--image', 'python'], { ...env, WEFT_URL: gateway.url, WEFT_KEY: KEY });

    expect(result.code, result.stderr).toBe(0);
    expect(gateway.created).toEqual([{ id: 'ses_1', workspaceId: 'ws_1', model: 'tiny', sandboxImage: 'python' }]);
  });

  it('exits 1 with the code and message when the turn fails', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [failedTurn] });
    const result = await weft(['run', 'do it', '--workspace', 'ws_9'], { ...env, WEFT_URL: gateway.url, WEFT_KEY: KEY });

    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Thinking\n✗ turn failed: the model crashed (INFERENCE.GENERATION_FAILED)\n');
    expect(gateway.uploads).toHaveLength(0);
  });

  it('prints raw events as JSON lines with --json', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [completedTurn] });
    const result = await weft(['run', 'go', '--session', 'ses_1', '--json'], { ...env, WEFT_URL: gateway.url, WEFT_KEY: KEY });

    expect(result.code).toBe(0);
    const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; id: string });
    expect(events.map((event) => event.type)).toEqual(['message.created', ...completedTurn.map((event) => event.type), 'weft.result']);
    expect(events[0]?.id).toBe('1700000000000-1');
    expect(events.at(-1)).toMatchObject({ status: 'completed', exitCode: 0, turnId: 'turn_1', answer: 'Done.', filesChanged: [], patch: null });
  });

  it('prints an API error as message and code', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [] });
    const result = await weft(['run', 'go', '--workspace', 'ws_1', '--model', 'huge'], { ...env, WEFT_URL: gateway.url, WEFT_KEY: KEY });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error: unknown model huge; known: tiny (INFERENCE.UNKNOWN_MODEL)');
  });

  it('logs in, stores the key 0600, and uses it afterwards', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [] });
    const refused = await weft(['login', '--url', gateway.url, '--key', 'wrong'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error: unknown API key (AUTH.UNAUTHORIZED)');

    const accepted = await weft(['login', '--url', `${gateway.url}/`, '--key', KEY], env);
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain('as ada (usr_1)');
    const file = join(env.XDG_CONFIG_HOME ?? '', 'weft/config.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ url: gateway.url, key: KEY });

    // The stub serves the scripted tiny alone: a test model, listed with --all only.
    const models = await weft(['models'], env);
    expect(models.code).toBe(0);
    expect(models.stdout).toBe('no models but scripted and test ones\n1 scripted or test model hidden: weft models --all lists them\n');
    const all = await weft(['models', '--all'], env);
    expect(all.stdout).toContain('tiny  scripted · context 4096');
  });

  it('pushes a folder and pulls it back', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [] });
    const auth = { ...env, WEFT_URL: gateway.url, WEFT_KEY: KEY };
    const pushed = await weft(['workspace', 'push', await project()], auth);
    expect(pushed.code).toBe(0);
    expect(pushed.stdout).toBe('ws_1\n');

    const target = join(home, 'copy');
    const pulled = await weft(['workspace', 'pull', 'ws_1', target], auth);
    expect(pulled.code).toBe(0);
    expect(await readFile(join(target, 'src/b.ts'), 'utf8')).toBe('export {};\n');
    expect(existsSync(join(target, 'node_modules'))).toBe(false);
  });

  it('chats turn after turn until /exit', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [completedTurn, failedTurn] });
    const result = await weft(['chat', '--session', 'ses_1'], { ...env, WEFT_URL: gateway.url, WEFT_KEY: KEY }, 'first\nsecond\n/exit\nnever sent\n');

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('✓ done · 3 steps');
    expect(result.stdout).toContain('✗ turn failed: the model crashed');
    expect(gateway.streams).toHaveLength(2);
  });

  it('switches sessions with /resume and /clear, sending each message to the current one', async () => {
    gateway = await startStubGateway({
      key: KEY,
      turns: [completedTurn, completedTurn],
      sessions: [{ id: 'ses_2', workspaceId: 'ws_9', model: 'tiny', preview: 'older work' }],
    });
    const input = '/sessions\n/resume ses_2\nfirst\n/clear\nsecond\n/quit\nnever sent\n';
    const result = await weft(['chat', '--session', 'ses_1'], { ...env, WEFT_URL: gateway.url, WEFT_KEY: KEY }, input);

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('ses_2  older work');
    expect(gateway.created).toEqual([{ id: 'ses_3', workspaceId: 'ws_9', model: 'tiny' }]);
    expect(gateway.posted).toEqual([
      { sessionId: 'ses_2', content: 'first' },
      { sessionId: 'ses_3', content: 'second' },
    ]);
    expect(result.stderr).toContain('weft chat --session ses_3');
  });

  it('sends /plan and /local tasks with their mode from chat, and --plan / --local from run', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [completedTurn, completedTurn, completedTurn, completedTurn] });
    const auth = { ...env, WEFT_URL: gateway.url, WEFT_KEY: KEY };
    const chat = await weft(['chat', '--session', 'ses_1'], auth, '/plan add a login page\n/local rename x to y\n/usr/bin/env is missing\n/quit\n');
    expect(chat.code).toBe(0);
    const run = await weft(['run', 'split the parser', '--session', 'ses_1', '--plan', '--local'], auth);
    expect(run.code).toBe(0);
    expect(gateway.posted).toEqual([
      { sessionId: 'ses_1', content: 'add a login page', mode: 'plan' },
      { sessionId: 'ses_1', content: 'rename x to y', to: 'junior' },
      { sessionId: 'ses_1', content: '/usr/bin/env is missing' },
      { sessionId: 'ses_1', content: 'split the parser', mode: 'plan', to: 'junior' },
    ]);
  });

  it("lists and runs the workspace's chains with weft chain and /chain, inputs as key=value", async () => {
    gateway = await startStubGateway({ key: KEY, turns: [completedTurn, completedTurn] });
    const auth = { ...env, WEFT_URL: gateway.url, WEFT_KEY: KEY };
    const listed = await weft(['chain', '--list', '--session', 'ses_1'], auth);
    expect(listed.stdout).toContain('fix-bug  issue=…  find and fix');
    expect(listed.stdout).toContain('broken  not valid YAML');
    const ran = await weft(['chain', 'fix-bug', 'issue=the login page crashes', '--session', 'ses_1'], auth);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('✓ done');
    const chat = await weft(['chat', '--session', 'ses_1'], auth, '/chains\n/chain fix-bug issue="it crashes"\n/quit\n');
    expect(chat.stdout).toContain('fix-bug issue=…  find and fix  (2 steps)');
    expect(gateway.chainRuns).toEqual([
      { sessionId: 'ses_1', chain: 'fix-bug', inputs: { issue: 'the login page crashes' } },
      { sessionId: 'ses_1', chain: 'fix-bug', inputs: { issue: 'it crashes' } },
    ]);
    expect((await weft(['chain', '--session', 'ses_1'], auth)).stderr).toContain('name the chain to run, or pass --list');
  });

  it('allows what the agent asks, once each, with --yes', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [askingTurn] });
    const result = await weft(['run', 'test it', '--session', 'ses_1', '--yes'], { ...env, WEFT_URL: gateway.url, WEFT_KEY: KEY });

    expect(result.code).toBe(0);
    expect(gateway.answers).toEqual([{ requestId: 'perm_1', decision: 'allow_once' }]);
  });

  it('answers a permission question in chat from the next line typed, with a reason for a no', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [askingTurn] });
    const result = await weft(['chat', '--session', 'ses_1'], { ...env, WEFT_URL: gateway.url, WEFT_KEY: KEY }, 'run the tests\nn not now\n/exit\n');

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('allow run_command: npm test');
    expect(gateway.answers).toEqual([{ requestId: 'perm_1', decision: 'deny', reason: 'not now' }]);
  });

  it('cancels the turn and exits 3 (approval needed) at the first question when input is piped to run without --yes', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [waitingForAnswerTurn] });
    const result = await weft(['run', 'test it', '--session', 'ses_1'], { ...env, WEFT_URL: gateway.url, WEFT_KEY: KEY });

    expect(result.code).toBe(3);
    expect(result.stdout).toContain('? permission needed for npm test');
    expect(result.stderr).toContain(
      'error: the agent asks permission for run_command: npm test, and no one can answer here (input is not a terminal), so the turn was cancelled: pass --yes',
    );
    expect(gateway.answers).toEqual([]);
    expect(gateway.cancels).toEqual(['turn_1']);
  });

  it('cancels the turn on Ctrl-C, says so, and exits 130', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [hangingTurn] });
    const running = startWeft(['run', 'think', '--session', 'ses_1'], { ...env, WEFT_URL: gateway.url, WEFT_KEY: KEY });
    await running.waitFor('Thinking hard');
    running.child.kill('SIGINT');
    const result = await running.done;

    expect(result.code).toBe(130);
    expect(result.stderr).toContain('cancelling the turn… (Ctrl-C again to leave without waiting)');
    expect(result.stdout).toContain('✗ turn cancelled');
    expect(gateway.cancels).toEqual(['turn_1']);
  });

  it('cancels a turn of the chat on Ctrl-C and takes the next message; Ctrl-C at the prompt leaves', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [hangingTurn, completedTurn] });
    const running = startWeft(['chat', '--session', 'ses_1'], { ...env, WEFT_URL: gateway.url, WEFT_KEY: KEY });
    running.child.stdin.write('think\n');
    await running.waitFor('Thinking hard');
    running.child.kill('SIGINT');
    await running.waitFor('✗ turn cancelled');
    running.child.stdin.write('next\n');
    await running.waitFor('✓ done');
    running.child.kill('SIGINT');
    const result = await running.done;

    expect(result.code).toBe(0);
    expect(gateway.cancels).toEqual(['turn_1']);
    expect(gateway.posted.map((p) => p.content)).toEqual(['think', 'next']);
    expect(result.stderr).toContain('continue with: weft chat --session ses_1');
  });

  it('says how to get the files after a turn that changed some', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [writingTurn], patch: writingTurnPatch });
    const dir = await project();
    const result = await weft(['run', 'greet the world', '--dir', dir, '--yes'], { ...env, WEFT_URL: gateway.url, WEFT_KEY: KEY });

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `1 file changed in the workspace (a.txt) · \`weft apply ses_1\` writes them into ${dir} · \`weft workspace pull ws_1 <dir>\` downloads all of it`,
    );
  });

  it('runs every example of weft run --help', async () => {
    const help = await weft(['run', '--help'], env);
    const examples = help.stdout
      .split('\n')
      .filter((line) => line.startsWith('  weft run '))
      .map((line) => line.split(' # ')[0]?.trim() ?? '');
    expect(examples.length).toBeGreaterThanOrEqual(5);
    gateway = await startStubGateway({ key: KEY, turns: examples.map(() => completedTurn) });
    const cwd = await project();
    await mkdir(join(home, 'api'));
    await writeFile(join(home, 'api', 'main.go'), 'package main\n');
    for (const example of examples) {
      const args = (parseShellWords(example) as string[]).slice(1).map((word) => word.replace('ses_…', 'ses_1'));
      const result = await weft(args, { ...env, WEFT_URL: gateway.url, WEFT_KEY: KEY }, undefined, { cwd });
      expect(result.code, `${example}\n${result.stderr}`).toBe(0);
    }
    expect(gateway.posted.map((p) => p.content)).toHaveLength(examples.length);
  });

  it('names the URL when the gateway is down', async () => {
    const result = await weft(['models'], { ...env, WEFT_URL: 'http://127.0.0.1:9', WEFT_KEY: KEY });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot reach the Weft gateway at http://127.0.0.1:9');
  });
});
