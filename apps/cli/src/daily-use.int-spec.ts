import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { StoredSessionEvent } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { type ScriptStep, requestsOf, script, scriptedWorld, type SessionFixture } from '../../../test/support/app-harnesses';
import { startWeft, weft } from './testing/built-cli';
import { cliStack } from './testing/cli-stack';

/**
 * What a developer does every day with the built `weft`, against the real gateway (in-process, on
 * real Redis and NATS) with the real tools worker holding workspaces on disk and a scripted model:
 * sessions, export, apply (real git apply in temp folders), instructions, a permission question
 * with no terminal, and Ctrl-C during a turn.
 */
const run = promisify(execFile);

const cells = (line: string | undefined) => (line ?? '').trim().split(/\s{2,}/);
const lineWith = (text: string, needle: string) => text.split('\n').find((line) => line.includes(needle));
const today = () => new Date().toISOString().slice(0, 10);
const write = (path: string, content: string) => ({ name: 'write_file', arguments: { path, content } });

function env(f: { key: string }): Record<string, string> {
  return { XDG_CONFIG_HOME: join(stack.home, 'config'), HOME: stack.home, WEFT_URL: stack.gateway.base, WEFT_KEY: f.key };
}

async function git(dir: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', ['-c', 'user.name=Ada', '-c', 'user.email=ada@example.com', ...args], { cwd: dir });
  return stdout;
}

/** A folder holding `files`; committed to a fresh repository unless `repo` is false. */
async function folder(name: string, files: Record<string, string>, repo = true): Promise<string> {
  const dir = join(stack.home, name);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  if (repo) {
    await git(dir, 'init', '-q');
    await git(dir, 'add', '.');
    await git(dir, 'commit', '-qm', 'start');
  }
  return dir;
}

/** `weft workspace push` of `dir` (so the CLI knows where it came from), and a session on it that runs `steps`. */
async function pushedSession(f: SessionFixture, dir: string, steps: ScriptStep[]): Promise<{ workspaceId: string; sessionId: string }> {
  const pushed = await weft(['workspace', 'push', dir], env(f));
  expect(pushed.code, pushed.stderr).toBe(0);
  const workspaceId = pushed.stdout.trim();
  const created = await stack.client.api('POST', '/v1/sessions', f.key, { workspaceId, model: 'tiny' });
  const sessionId = String(created.json.id);
  script(sessionId, steps);
  return { workspaceId, sessionId };
}

async function events(f: { key: string }, sessionId: string): Promise<StoredSessionEvent[]> {
  const exported = await stack.client.api('GET', `/v1/sessions/${sessionId}/export?format=jsonl`, f.key);
  return exported.text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; event?: StoredSessionEvent })
    .flatMap((line) => (line.event ? [line.event] : []));
}

const stack = cliStack('weft-cli-daily');

describe('weft sessions', () => {
  it('lists sessions by last activity with title or first prompt, model, workspace; renames and deletes them', async () => {
    const f = await stack.client.fixture(`sessions-${stack.testId}`);
    const ran = await weft(['run', 'Summarise   the project', '--session', f.sessionId], env(f));
    expect(ran.code, ran.stderr).toBe(0);
    const second = String((await stack.client.api('POST', '/v1/sessions', f.key, { workspaceId: f.workspaceId, model: 'tiny' })).json.id);

    const listed = await weft(['sessions'], env(f));
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(cells(lines[0])).toEqual(['id', 'title', 'model', 'workspace', 'last activity']);
    expect(cells(lines[1])[0]).toBe(second); // created after the other's turn ended
    const [, title, model, workspace, lastActivity] = cells(lineWith(listed.stdout, f.sessionId));
    expect({ title, model, workspace }).toEqual({ title: 'Summarise the project', model: 'tiny', workspace: 'workspace' });
    expect(lastActivity).toMatch(new RegExp(`^${today()} \\d{2}:\\d{2}$`));
    expect(cells(lineWith(listed.stdout, second))[1]).toBe('(no messages yet)');

    expect((await weft(['sessions', 'rename', f.sessionId, 'Project', 'summary'], env(f))).code).toBe(0);
    expect(cells(lineWith((await weft(['sessions', 'list'], env(f))).stdout, f.sessionId))[1]).toBe('Project summary');

    const declined = await weft(['sessions', 'delete', f.sessionId], env(f), 'n\n');
    expect(declined.code).toBe(1);
    expect(declined.stderr).toContain(`delete session ${f.sessionId} (Project summary) with its history? [y/N]`);
    expect(declined.stderr).toContain('error: not deleted (pass --yes to delete without asking)');
    const noInput = await weft(['sessions', 'delete', f.sessionId], env(f));
    expect(noInput.code).toBe(1);
    expect((await weft(['sessions'], env(f))).stdout).toContain(f.sessionId);

    expect((await weft(['sessions', 'delete', f.sessionId], env(f), 'y\n')).code).toBe(0);
    const deleted = await weft(['sessions', 'delete', second, '--yes'], env(f));
    expect(deleted.code, deleted.stderr).toBe(0);
    expect((await weft(['sessions'], env(f))).stdout).toContain('no sessions');
    const again = await weft(['sessions', 'delete', second, '--yes'], env(f));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`Session ${second} not found (COMMON.NOT_FOUND)`);
  });

  it('refuses to delete a session while its turn runs, saying to cancel it first', async () => {
    const f = await stack.client.fixture(`sessions-busy-${stack.testId}`);
    script(f.sessionId, [{ text: 'thinking', hang: true }]);
    const { json } = await stack.client.start(f, '/messages', { content: 'think' });
    const refused = await weft(['sessions', 'delete', f.sessionId, '--yes'], env(f));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('cancel it first (AGENT.TURN_IN_PROGRESS)');
    await stack.client.api('POST', `/v1/sessions/${f.sessionId}/turns/${String(json.turnId)}/cancel`, f.key);
  });
});

describe('weft export', () => {
  it('prints the session as Markdown, or writes it as JSONL to a file', async () => {
    const f = await stack.client.fixture(`export-${stack.testId}`);
    script(f.sessionId, [{ calls: [write('a.txt', 'x\n')] }, { text: 'Wrote a.txt.' }]);
    expect((await weft(['run', 'Create a.txt', '--session', f.sessionId, '--yes'], env(f))).code).toBe(0);

    const markdown = await weft(['export', f.sessionId], env(f));
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toContain('Create a.txt');
    expect(markdown.stdout).toContain('**Tool call** `write_file`');
    expect(markdown.stdout).toContain('Wrote a.txt.');

    const file = join(stack.home, 'out', 'session.jsonl');
    await mkdir(join(stack.home, 'out'));
    const jsonl = await weft(['export', f.sessionId, '--format', 'jsonl', '-o', file], env(f));
    expect(jsonl.code, jsonl.stderr).toBe(0);
    expect(jsonl.stdout).toBe('');
    expect(jsonl.stderr).toContain(`wrote ${f.sessionId} as jsonl`);
    const lines = (await readFile(file, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { type: string; id?: string });
    expect(lines[0]).toMatchObject({ type: 'session', id: f.sessionId });
    expect(lines.filter((line) => line.type === 'message')).toHaveLength(4);

    const bad = await weft(['export', f.sessionId, '--format', 'pdf'], env(f));
    expect(bad.code).toBe(2); // a wrong command line
    expect(bad.stderr).toContain("argument 'pdf' is invalid. Allowed choices are markdown, jsonl.");
  });
});

describe('weft apply', () => {
  it("says after the turn which files changed, then writes them into the folder's git checkout, refusing while it is dirty", async () => {
    const f = await stack.client.fixture(`apply-${stack.testId}`);
    const dir = await folder('project', { 'a.txt': 'hello\n', 'src/app.py': 'print("hi")\n' });
    const { sessionId } = await pushedSession(f, dir, [{ calls: [write('a.txt', 'hello, world\n'), write('docs/notes.md', '# Notes\n')] }, { text: 'Done.' }]);
    const ran = await weft(['run', 'greet the world', '--session', sessionId, '--yes'], env(f), undefined, { cwd: dir });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain(`2 files changed in the workspace (a.txt, docs/notes.md) · \`weft apply ${sessionId}\` writes them here · `);

    const dry = await weft(['apply', '--dry-run'], env(f), undefined, { cwd: dir });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe('M  a.txt\nA  docs/notes.md\n');
    expect(dry.stderr).toContain(`2 files would change in ${dir} (nothing written)`);

    await writeFile(join(dir, 'src/app.py'), 'print("mine")\n');
    const dirty = await weft(['apply'], env(f), undefined, { cwd: dir });
    expect(dirty.code).toBe(1);
    expect(dirty.stderr).toContain(`error: ${dir} has uncommitted changes (src/app.py): commit or stash them first`);
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('hello\n');
    await writeFile(join(dir, 'src/app.py'), 'print("hi")\n');

    const applied = await weft(['apply'], env(f), undefined, { cwd: dir });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toBe('M  a.txt\nA  docs/notes.md\n');
    expect(applied.stderr).toMatch(new RegExp(`applied 2 files from ws_\\S+ to ${dir}`));
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('hello, world\n');
    expect(await readFile(join(dir, 'docs/notes.md'), 'utf8')).toBe('# Notes\n');
    expect((await git(dir, 'status', '--porcelain')).split('\n').filter(Boolean).sort()).toEqual([' M a.txt', '?? docs/']);

    const twice = await weft(['apply', sessionId, '--force'], env(f), undefined, { cwd: stack.home });
    expect(twice.code, twice.stderr).toBe(0);
    expect(twice.stderr).toContain(`are already in ${dir}`);
  });

  it('applies in a subfolder of a repository, where git apply alone would skip every file', async () => {
    const f = await stack.client.fixture(`apply-sub-${stack.testId}`);
    const repo = await folder('mono', { 'services/api/main.go': 'package main\n', 'README.md': '# mono\n' });
    const dir = join(repo, 'services/api');
    const { sessionId } = await pushedSession(f, dir, [{ calls: [write('main.go', 'package main\n\nfunc main() {}\n')] }, { text: 'Done.' }]);
    expect((await weft(['run', 'add main', '--session', sessionId, '--yes'], env(f))).code).toBe(0);

    const applied = await weft(['apply', sessionId], env(f));
    expect(applied.code, applied.stderr).toBe(0);
    expect(await readFile(join(dir, 'main.go'), 'utf8')).toBe('package main\n\nfunc main() {}\n');
  });

  it('refuses changes that do not apply, writing nothing, and applies into another folder that is not a repository', async () => {
    const f = await stack.client.fixture(`apply-conflict-${stack.testId}`);
    const dir = await folder('plain', { 'a.txt': 'hello\n', 'b.txt': 'keep\n' }, false);
    const { sessionId, workspaceId } = await pushedSession(f, dir, [{ calls: [write('a.txt', 'hello, world\n'), write('c.txt', 'new\n')] }, { text: 'Done.' }]);
    expect((await weft(['run', 'change a', '--session', sessionId, '--yes'], env(f))).code).toBe(0);

    await writeFile(join(dir, 'a.txt'), 'goodbye\n');
    const refused = await weft(['apply', sessionId], env(f));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`error: the changes of ${workspaceId} do not apply cleanly to ${dir}, so nothing was written:`);
    expect(refused.stderr).toContain('a.txt: patch does not apply');
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('goodbye\n');
    await expect(readFile(join(dir, 'c.txt'), 'utf8')).rejects.toThrow('ENOENT');

    const copy = await folder('copy', { 'a.txt': 'hello\n', 'b.txt': 'keep\n' }, false);
    const applied = await weft(['apply', workspaceId, '--dir', copy], env(f));
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toBe('M  a.txt\nA  c.txt\n');
    expect(await readFile(join(copy, 'a.txt'), 'utf8')).toBe('hello, world\n');
    expect(await readFile(join(copy, 'c.txt'), 'utf8')).toBe('new\n');

    const unknown = await weft(['apply'], env(f), undefined, { cwd: stack.home });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`error: no workspace was uploaded from ${stack.home} on this machine`);
  });
});

describe('weft instructions', () => {
  it('shows, sets from text, a file or stdin, and clears the personal instructions', async () => {
    const f = await stack.client.fixture(`instructions-${stack.testId}`);
    const none = await weft(['instructions'], env(f));
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('no personal instructions');

    expect((await weft(['instructions', 'set', 'Answer in French.'], env(f))).code).toBe(0);
    const shown = await weft(['instructions', 'show'], env(f));
    expect(shown.stdout).toBe('Answer in French.\n');
    expect(shown.stderr).toMatch(new RegExp(`updated ${today()} \\d{2}:\\d{2} UTC`));

    const file = join(stack.home, 'weft.md');
    await writeFile(file, 'Run the tests.\nBe brief.\n');
    expect((await weft(['instructions', 'set', '--file', file], env(f))).code).toBe(0);
    expect((await stack.client.api('GET', '/v1/me/instructions', f.key)).json.content).toBe('Run the tests.\nBe brief.\n');
    expect((await weft(['instructions', 'set', '--file', '-'], env(f), 'From stdin.')).code).toBe(0);
    expect((await weft(['instructions'], env(f))).stdout).toBe('From stdin.\n');

    const empty = await weft(['instructions', 'set'], env(f));
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('no instructions given: to remove them, use weft instructions clear');
    expect((await weft(['instructions', 'clear'], env(f))).code).toBe(0);
    expect((await stack.client.api('GET', '/v1/me/instructions', f.key)).json).toEqual({ content: '', updatedAt: null });
  });
});

describe('weft run headless, as a CI job runs it', () => {
  /** The JSON lines of a `--json` run: the session events, then the result. */
  const jsonLines = (stdout: string) => stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

  it('lets --allow and --deny rules answer, ends with a result line and writes the patch with --patch', async () => {
    const f = await stack.client.fixture(`headless-${stack.testId}`);
    const dir = await folder(`headless-${stack.testId}`, { 'src/app.py': 'print(1)\n' });
    const { sessionId, workspaceId } = await pushedSession(f, dir, [
      { calls: [write('src/app.py', 'print(2)\n')] },
      { calls: [write('deploy.sh', 'git push\n')] },
      { text: 'Fixed.' },
    ]);
    const patch = join(dir, '..', `headless-${stack.testId}.patch`);
    const result = await weft(['run', 'fix it', '--session', sessionId, '--json', '--allow', 'Write(src/**)', '--deny', 'Write(deploy.sh)', '--patch', patch], env(f));

    expect(result.code, result.stderr).toBe(0);
    const lines = jsonLines(result.stdout);
    const decided = lines.filter((line) => line.type === 'permission.decided').map((line) => [line.decision, line.decidedBy]);
    expect(decided).toEqual([['allow', 'policy'], ['deny', 'policy']]);
    expect(lines.at(-1)).toMatchObject({
      type: 'weft.result',
      status: 'completed',
      exitCode: 0,
      sessionId,
      workspaceId,
      answer: 'Fixed.',
      filesChanged: [{ path: 'src/app.py', change: 'modified' }],
      patch,
      error: null,
    });
    expect(await readFile(patch, 'utf8')).toContain('+print(2)');
  });

  it('exits 3 with an approval_needed result when no rule answers, and 2 on a wrong command line', async () => {
    const f = await stack.client.fixture(`headless-ask-${stack.testId}`);
    script(f.sessionId, [{ calls: [write('a.txt', 'x\n')] }, { text: 'never' }]);
    const asked = await weft(['run', 'write a.txt', '--session', f.sessionId, '--json', '--allow', 'Bash(pytest*)'], env(f));

    expect(asked.code).toBe(3);
    expect(jsonLines(asked.stdout).at(-1)).toMatchObject({ type: 'weft.result', status: 'approval_needed', exitCode: 3, sessionId: f.sessionId });

    const wrong = await weft(['run', 'x', '--session', f.sessionId, '--no-such-flag'], env(f));
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("unknown option '--no-such-flag'");
  });
});

describe('a turn the user stops or cannot answer', () => {
  it('fails fast when the agent asks permission and input is not a terminal, cancelling the turn', async () => {
    const f = await stack.client.fixture(`unattended-${stack.testId}`);
    script(f.sessionId, [{ calls: [write('a.txt', 'x\n')] }, { text: 'never' }]);
    const started = Date.now();
    const result = await weft(['run', 'write a.txt', '--session', f.sessionId], env(f));

    expect(result.code).toBe(3); // approval needed, not given
    expect(result.stderr).toContain('error: the agent asks permission for write_file: write a.txt, and no one can answer here (input is not a terminal), so the turn was cancelled');
    expect(Date.now() - started).toBeLessThan(20_000); // not PERMISSION_TIMEOUT_MS (5 minutes)
    await expect.poll(async () => (await events(f, f.sessionId)).at(-1)?.type).toBe('turn.cancelled');
    expect((await stack.client.api('GET', `/v1/sessions/${f.sessionId}`, f.key)).json.activeTurnId).toBeNull();
    expect((await stack.client.api('GET', `/v1/workspaces/${f.workspaceId}/patch`, f.key)).text).toBe('');
  });

  it('cancels the turn on the stack.gateway on Ctrl-C in weft run, exits 130, and the session takes the next message', async () => {
    const f = await stack.client.fixture(`ctrl-c-${stack.testId}`);
    script(f.sessionId, [{ text: 'Let me think', hang: true }, { text: 'fresh answer' }]);
    const running = startWeft(['run', 'think hard', '--session', f.sessionId], env(f));
    await running.waitFor('Let me think');
    running.child.kill('SIGINT');
    const result = await running.done;

    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain('cancelling the turn… (Ctrl-C again to leave without waiting)');
    expect(result.stdout).toContain('✗ turn cancelled');
    expect((await events(f, f.sessionId)).at(-1)).toMatchObject({ type: 'turn.cancelled', userId: f.userId });
    const requestId = requestsOf(f.sessionId)[0]?.requestId ?? '';
    await expect.poll(() => scriptedWorld.cancelled).toContain(requestId);

    const next = await weft(['run', 'try again', '--session', f.sessionId], env(f));
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain('fresh answer');
  });

  it('cancels a turn of weft chat on Ctrl-C and goes on; Ctrl-C at the prompt leaves', async () => {
    const f = await stack.client.fixture(`chat-ctrl-c-${stack.testId}`);
    script(f.sessionId, [{ text: 'Pondering', hang: true }, { text: 'Here you are' }]);
    const chat = startWeft(['chat', '--session', f.sessionId], env(f));
    chat.child.stdin.write('ponder\n');
    await chat.waitFor('Pondering');
    chat.child.kill('SIGINT');
    await chat.waitFor('✗ turn cancelled');
    chat.child.stdin.write('and now?\n');
    await chat.waitFor('Here you are');
    await chat.waitFor('✓ done');
    chat.child.kill('SIGINT');
    const result = await chat.done;

    expect(result.code, result.stderr).toBe(0);
    expect((await events(f, f.sessionId)).filter((e) => e.type === 'turn.cancelled' || e.type === 'turn.completed').map((e) => e.type)).toEqual([
      'turn.cancelled',
      'turn.completed',
    ]);
  });
});
