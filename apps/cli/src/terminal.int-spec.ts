import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type GatewayUnderTest, startGatewayUnderTest, ScriptedWorkersModule, script, sessionApi } from '../../../test/support/app-harnesses';
import { buildCli, weft, weftCommandLine } from './testing/built-cli';
import { type TmuxPane, startInTmux } from './testing/tmux';

/**
 * The built `weft` in a real terminal (a tmux pane) against the real gateway (in-process, on real
 * Redis and NATS) with scripted workers: what a person at the terminal sees and types.
 */
let gateway: GatewayUnderTest;
let client: ReturnType<typeof sessionApi>;
let home: string;
let testId = 0;
const panes: TmuxPane[] = [];

function env(f: { key: string; NO_COLOR?: string }): Record<string, string> {
  return { XDG_CONFIG_HOME: join(home, 'config'), HOME: home, WEFT_URL: gateway.base, WEFT_KEY: f.key, ...(f.NO_COLOR ? { NO_COLOR: f.NO_COLOR } : {}) };
}

/** Waits until the pane shows `text`; the screen it last saw is in the failure. */
async function untilShown(pane: TmuxPane, text: string | RegExp): Promise<string> {
  return vi.waitFor(
    async () => {
      const screen = await pane.screen();
      if (typeof text === 'string' ? !screen.includes(text) : !text.test(screen)) throw new Error(`the pane does not show ${String(text)}; it shows:\n${screen}`);
      return screen;
    },
    { timeout: 30_000, interval: 100 },
  );
}

beforeAll(async () => {
  [gateway] = await Promise.all([startGatewayUnderTest(ScriptedWorkersModule), buildCli()]);
  client = sessionApi(gateway.base);
});

afterAll(async () => {
  await Promise.all(panes.map((pane) => pane.close()));
  await gateway?.stop();
});

beforeEach(async (context) => {
  testId++;
  home = await mkdtemp(join(tmpdir(), 'weft-cli-terminal-'));
  context.onTestFinished(() => rm(home, { recursive: true, force: true }));
});

async function inTmux(args: string[], f: { key: string; NO_COLOR?: string }): Promise<TmuxPane> {
  const pane = await startInTmux(weftCommandLine(args), env(f), home);
  panes.push(pane);
  return pane;
}

describe('weft run at a terminal', () => {
  it('shows the permission choices before it reads the answer, and says where an "always" rule went', async () => {
    const f = await client.fixture(`prompt-${testId}`);
    script(f.sessionId, [
      { calls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'one\n' } }] },
      { calls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'two\n' } }] },
      { text: 'Both written.' },
    ]);
    const pane = await inTmux(['run', 'write two files', '--session', f.sessionId], f);

    const first = await untilShown(pane, /\[y\/a\/n\] *$/m);
    expect(first).toContain('? allow write_file: write a.txt');
    expect(first).toMatch(/y once · a always \(.+\) · n no \[y\/a\/n\]/);
    // Asked once: the event's own line is not printed beside the question.
    expect(first).not.toContain('permission needed');
    await pane.press('y'); // one key, no Enter
    await untilShown(pane, 'allowed by you');

    const second = await untilShown(pane, /allow write_file: write b\.txt[\s\S]*\[y\/a\/n\]/);
    expect(second).toContain('? allow write_file: write b.txt');
    await pane.typeLine('a');
    const end = await untilShown(pane, '[exit 0]');
    expect(end).toMatch(/allowed by you · \S+ now allowed in this session/);
    expect(end).not.toContain('(user)');
    expect(end).toContain('Both written.');
  });

  it('shows the first words of a long paragraph before it ends, then renders it whole', async () => {
    const f = await client.fixture(`live-${testId}`);
    const words = ['The first words', ' of a long answer', ' with `inline code`', ' arrive at once,', ' and **the rest** later.'];
    script(f.sessionId, [{ chunks: words, chunkDelayMs: 800 }]);
    const pane = await inTmux(['run', 'explain', '--session', f.sessionId], f);

    const early = await untilShown(pane, 'The first words');
    expect(early).not.toContain('[exit');
    expect(early).not.toContain('the rest');
    const end = await untilShown(pane, '[exit 0]');
    // Rendered once, whole: no raw Markdown left from the preview, the text not twice.
    expect(end).toContain('and the rest later.');
    expect(end).not.toContain('**');
    expect(end.match(/The first words/g)).toHaveLength(1);
  });

  it('denies with one key, then asks why and sends the reason to the model', async () => {
    const f = await client.fixture(`deny-${testId}`);
    script(f.sessionId, [{ calls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'one\n' } }] }, { text: 'Understood.' }]);
    const pane = await inTmux(['run', 'write a file', '--session', f.sessionId], f);

    await untilShown(pane, /\[y\/a\/n\] *$/m);
    await pane.press('n');
    await untilShown(pane, /why not\? .*Enter to skip\) *$/m);
    await pane.typeLine('write b.txt instead');
    const end = await untilShown(pane, '[exit 0]');
    expect(end).toContain('denied by you: write b.txt instead');
    expect(end).toContain('Understood.');
  });

  it("renders the answer's Markdown (tables drawn, code without fences) at a terminal, and leaves it as written with --raw", async () => {
    const answer = ['Here is the summary:', '', '| file | lines |', '| --- | ---: |', '| a.ts | 12 |', '| b.ts | 3 |', '', '```ts', 'const x = 1;', '```', '', 'That is **all**.'].join('\n');
    const f = await client.fixture(`markdown-${testId}`);
    script(f.sessionId, [{ chunks: [answer.slice(0, 30), answer.slice(30, 61), answer.slice(61)] }, { text: answer }]);

    const rendered = await untilShown(await inTmux(['run', 'summarise', '--session', f.sessionId], f), '[exit 0]');
    expect(rendered).toMatch(/│ a\.ts\s+│\s+12\s+│/);
    expect(rendered).toContain('const x = 1;');
    expect(rendered).toContain('That is all.');
    expect(rendered).not.toContain('| --- |');
    expect(rendered).not.toContain('```');

    const raw = await untilShown(await inTmux(['run', 'again', '--session', f.sessionId, '--raw'], f), '[exit 0]');
    expect(raw).toContain('| a.ts | 12 |');
    expect(raw).toContain('```ts');

    // NO_COLOR: drawn, but without the renderer's colours and bold.
    script(f.sessionId, [{ text: 'That is **all**.' }]);
    const plain = await inTmux(['run', 'once more', '--session', f.sessionId], { ...f, NO_COLOR: '1' });
    await untilShown(plain, '[exit 0]');
    const shown = (await plain.screen({ escapes: true })).split('\n').find((line) => line.includes('That is'));
    expect(shown).toBe('That is all.');
  });
});

describe('weft chat at a terminal', () => {
  it('keeps the permission choices on screen while the answer is typed and corrected', async () => {
    const f = await client.fixture(`chat-prompt-${testId}`);
    script(f.sessionId, [{ calls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'one\n' } }] }, { text: 'Written.' }]);
    const pane = await inTmux(['chat', '--session', f.sessionId], f);
    await untilShown(pane, '›');
    await pane.typeLine('write a.txt');
    await untilShown(pane, /\[y\/a\/n\] *$/m);
    await pane.typeLine('x'); // not an answer: asked again
    await untilShown(pane, /\[y\/a\/n\] x\n.*\[y\/a\/n\] *$/m);
    await pane.press('q');
    await untilShown(pane, /\[y\/a\/n\] q\n*$/);
    await pane.press('BSpace'); // readline redraws its line on a backspace
    await untilShown(pane, /· n no \[y\/a\/n\]\n*$/);
    await pane.typeLine('y');
    await untilShown(pane, 'Written.');
    await pane.typeLine('/exit');
    await untilShown(pane, '[exit 0]');
  });
});

describe('tool results in weft chat', () => {
  it('cuts a long result to its first lines and shows it whole with /expand and /tool N', async () => {
    const log = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n');
    const f = await client.fixture(`expand-${testId}`, {}, { 'build.log': log });
    script(f.sessionId, [{ calls: [{ name: 'read_file', arguments: { path: 'build.log' } }] }, { text: 'Read it.' }]);
    const pane = await inTmux(['chat', '--session', f.sessionId], f);
    await untilShown(pane, '›');
    await pane.typeLine('read the log');
    const cut = await untilShown(pane, 'Read it.');
    expect(cut).toContain('⎿ line 1');
    expect(cut).toContain('… 8 more lines · /expand or /tool 1 shows it whole');
    expect(cut).not.toContain('line 12');

    await pane.typeLine('/expand');
    const whole = await untilShown(pane, 'line 12');
    expect(whole).toContain('[1] read_file(path="build.log")');
    await pane.typeLine('/tool 7');
    await untilShown(pane, 'no tool result 7 in this chat');
    await pane.typeLine('/exit');
    await untilShown(pane, '[exit 0]');
  });
});

describe('weft chain --list', () => {
  it("lists a workspace's chains without creating a session", async () => {
    const chain = ['description: find and fix a bug', 'inputs:', '  issue: { description: what is broken }', 'steps:', '  - name: find', '    prompt: "Find {{ inputs.issue }}"'].join('\n');
    const f = await client.fixture(`chains-${testId}`, {}, { '.weft/chains/fix-bug.yaml': chain });
    const sessions = async () => ((await client.api('GET', '/v1/sessions', f.key)).json.sessions as unknown[]).length;
    expect(await sessions()).toBe(1);

    const listed = await weft(['chain', '--list', '--workspace', f.workspaceId], env(f));
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe('fix-bug  issue=…  find and fix a bug\n');
    expect(await sessions()).toBe(1);

    const other = await client.fixture(`chains-other-${testId}`);
    const refused = await weft(['chain', '--list', '--workspace', f.workspaceId], env(other));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Workspace ${f.workspaceId} not found`);
  });
});

describe('weft when its reader goes away', () => {
  it('leaves quietly, without a stack trace, when stdout is closed before it writes (weft … | head)', async () => {
    const f = await client.fixture(`epipe-${testId}`);
    const [command, ...args] = weftCommandLine(['sessions']);
    const child = spawn(command as string, args, { env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env(f) }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // the reader is gone before the first line comes
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toContain('EPIPE');
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(code).toBe(0);
  });
});
