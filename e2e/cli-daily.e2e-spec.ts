import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { StoredSessionEvent } from '@weft/contracts';
import { beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { type RunningWeft, buildCli, startWeft, weft } from '../apps/cli/src/testing/built-cli';
import { call, newUserKey } from './support/api';
import { gatewayUrl } from './support/stack';

/**
 * A developer's day with the built `weft` on the compose stack: `weft setup`, a chat with the
 * GGUF model, Ctrl-C during a sandbox command, and `weft apply` into a git checkout. The scripted
 * models are e2e/scripts/cli-*.json.
 */
const run = promisify(execFile);
/** A turn's last line in the CLI's output, whatever its outcome (chat's prompt may precede it). */
const TURN_END = /✓ done · |✗ turn (failed|cancelled)/g;

let key: string;
let userId: string;
let home: string;

/** Only the config folder and home: what `weft setup` saved is all the CLI has. */
const savedLogin = () => ({ XDG_CONFIG_HOME: join(home, 'config'), HOME: home });
const env = () => ({ ...savedLogin(), WEFT_URL: gatewayUrl, WEFT_KEY: key });

/** The ids `run` and `chat` print when they open a session. */
function opened(stderr: string): { sessionId: string; workspaceId: string } {
  const match = /session (ses_\S+) · workspace (ws_\S+) · model/.exec(stderr);
  if (!match?.[1] || !match[2]) throw new Error(`no session was opened:\n${stderr}`);
  return { sessionId: match[1], workspaceId: match[2] };
}

async function sessionEvents(sessionId: string): Promise<StoredSessionEvent[]> {
  const exported = await call<string>('GET', `/v1/sessions/${sessionId}/export?format=jsonl`, key);
  expect(exported.status).toBe(200);
  return exported.body
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { event?: StoredSessionEvent })
    .flatMap((line) => (line.event ? [line.event] : []));
}

async function git(dir: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', ['-c', 'user.name=Ada', '-c', 'user.email=ada@example.com', ...args], { cwd: dir });
  return stdout;
}

/** A folder holding `files`, committed to a fresh repository. */
async function checkout(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(home, name);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  await git(dir, 'init', '-q');
  await git(dir, 'add', '.');
  await git(dir, 'commit', '-qm', 'start');
  return dir;
}

/** Types `line` into a running chat and waits for the turn it starts to end. */
async function say(chat: RunningWeft, line: string): Promise<void> {
  const ended = chat.output().stdout.match(TURN_END)?.length ?? 0;
  chat.child.stdin.write(`${line}\n`);
  await expect.poll(() => chat.output().stdout.match(TURN_END)?.length ?? 0, { timeout: 90_000, interval: 250 }).toBe(ended + 1);
}

beforeAll(async () => {
  const name = `cli-daily-${randomBytes(3).toString('hex')}`;
  [key] = await Promise.all([newUserKey(name), buildCli()]);
  userId = (await call<{ id: string }>('GET', '/v1/me', key)).body.id;
});

beforeEach(async (context) => {
  home = await mkdtemp(join(tmpdir(), 'weft-e2e-cli-'));
  context.onTestFinished(() => rm(home, { recursive: true, force: true }));
});

describe('the weft CLI on the compose stack', () => {
  it('sets up with --yes, and a plain command then works from the saved config alone', async () => {
    const configPath = join(home, 'config', 'weft', 'config.json');
    const setup = await weft(['setup', '--yes', '--url', gatewayUrl, '--key', key], savedLogin());

    expect(setup.code, setup.stdout + setup.stderr).toBe(0);
    expect(setup.stdout).toContain(`✓ gateway at ${gatewayUrl} is ready`);
    expect(setup.stdout).toContain(`✓ saved the gateway and key to ${configPath}`);
    expect(setup.stdout).toMatch(/^✓ the sandbox runs commands \(`true` took \d+ ms\)$/m);
    expect(setup.stdout).not.toContain('✗');
    expect(JSON.parse(await readFile(configPath, 'utf8'))).toEqual({ url: gatewayUrl, key });

    const sessions = await weft(['sessions'], savedLogin());
    expect(sessions.code, sessions.stderr).toBe(0);
    expect(sessions.stdout).toContain('no sessions');
  });

  it('answers five messages in a row in weft chat on the GGUF model, and leaves on /exit', async () => {
    const project = await mkdtemp(join(home, 'chat-'));
    await writeFile(join(project, 'README.md'), '# A small project\n');
    const chat = startWeft(['chat', '--model', 'tiny'], env(), { cwd: project });
    onTestFinished(() => void chat.child.kill());
    for (const line of ['Hello.', 'What is in this folder?', 'Say it shorter.', 'Thanks.', 'One more thing.']) await say(chat, line);
    chat.child.stdin.write('/exit\n');
    const result = await chat.done;

    expect(result.stdout.match(/✗ turn failed.*$/gm) ?? []).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.match(/✓ done · /g)).toHaveLength(5);
    const { sessionId } = opened(result.stderr);
    const events = await sessionEvents(sessionId);
    expect(events.filter((e) => e.type === 'turn.completed')).toHaveLength(5);
    const answers = events.flatMap((e) => (e.type === 'message.completed' ? [e.content] : []));
    expect(answers).toHaveLength(5);
    expect(answers.every((answer) => answer.length > 0)).toBe(true);
  });

  it('cancels the turn on Ctrl-C during a sandbox command, exits 130, and the session takes the next message', async () => {
    const project = await mkdtemp(join(home, 'slow-'));
    // `make` goes to the sandbox's long-run queue: its output streams, and a cancel kills it.
    await writeFile(join(project, 'Makefile'), 'all:\n\t@echo build-$$((6 * 7))-running\n\t@sleep 300\n');
    const running = startWeft(['run', 'run the long build', '--model', 'scripted/cli-slow-build', '--yes'], env(), { cwd: project });
    onTestFinished(() => void running.child.kill());
    // The recipe's own output: the build runs in the sandbox now.
    await running.waitFor('build-42-running');
    const pressed = Date.now();
    running.child.kill('SIGINT');
    const result = await running.done;

    expect(result.code, result.stderr).toBe(130);
    expect(Date.now() - pressed).toBeLessThan(30_000); // the `sleep 300` was stopped, not waited for
    expect(result.stderr).toContain('cancelling the turn… (Ctrl-C again to leave without waiting)');
    expect(result.stdout).toContain('✗ turn cancelled');
    const { sessionId } = opened(result.stderr);
    expect((await sessionEvents(sessionId)).at(-1)).toMatchObject({ type: 'turn.cancelled', userId });
    expect((await call<{ activeTurnId: string | null }>('GET', `/v1/sessions/${sessionId}`, key)).body.activeTurnId).toBeNull();

    const next = await weft(['run', 'and now?', '--session', sessionId], env(), undefined, { cwd: project });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain('Back after the cancel: the build is stopped.');
    expect((await sessionEvents(sessionId)).filter((e) => e.type === 'turn.cancelled' || e.type === 'turn.completed').map((e) => e.type)).toEqual([
      'turn.cancelled',
      'turn.completed',
    ]);
  });

  it("writes the agent's changes into the git checkout with weft apply, refusing while a local change conflicts", async () => {
    const dir = await checkout('project', { 'a.txt': 'hello\n', 'src/app.py': 'print("hi")\n' });
    const ran = await weft(['run', 'greet the world', '--model', 'scripted/cli-greet', '--yes'], env(), undefined, { cwd: dir });
    expect(ran.code, ran.stderr).toBe(0);
    const { sessionId, workspaceId } = opened(ran.stderr);
    expect(ran.stderr).toContain(`2 files changed in the workspace (a.txt, docs/notes.md) · \`weft apply ${sessionId}\` writes them here`);

    await writeFile(join(dir, 'a.txt'), 'goodbye\n');
    const dirty = await weft(['apply'], env(), undefined, { cwd: dir });
    expect(dirty.code).toBe(1);
    expect(dirty.stderr).toContain(`error: ${dir} has uncommitted changes (a.txt): commit or stash them first`);

    await git(dir, 'commit', '-qam', 'my own greeting');
    const conflict = await weft(['apply'], env(), undefined, { cwd: dir });
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain(`error: the changes of ${workspaceId} do not apply cleanly to ${dir}, so nothing was written:`);
    expect(conflict.stderr).toContain('a.txt: patch does not apply');
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('goodbye\n');
    await expect(readFile(join(dir, 'docs/notes.md'), 'utf8')).rejects.toThrow('ENOENT');

    await git(dir, 'reset', '-q', '--hard', 'HEAD~1');
    const applied = await weft(['apply'], env(), undefined, { cwd: dir });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toBe('M  a.txt\nA  docs/notes.md\n');
    expect(applied.stderr).toContain(`applied 2 files from ${workspaceId} to ${dir}`);
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('hello, world\n');
    expect(await readFile(join(dir, 'docs/notes.md'), 'utf8')).toBe('# Notes\n');
    expect((await git(dir, 'status', '--porcelain')).split('\n').filter(Boolean).sort()).toEqual([' M a.txt', '?? docs/']);
  });
});
