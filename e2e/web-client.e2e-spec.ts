import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { zipSync } from 'fflate';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUserKey } from './support/api';
import { accessibilityViolations, eventually, launchChromium, textOf } from './support/browser';
import { gatewayUrl } from './support/stack';
import { readTurns } from './support/turns';
import { SCREENSHOTS } from '../test/support/screenshots';

/**
 * The web client (apps/web) in a real browser: Debian's Chromium driven by playwright-core,
 * against the gateway of the compose stack, which serves the page at `/`. The scripted model
 * e2e/scripts/web-edit-run.json lists, edits (asks), runs `make` (asks, streams output), answers.
 */
const run = promisify(execFile);
const MODEL = 'scripted/web-edit-run';
const GREET = "export function greet(name) {\n  return 'Hello, ' + name;\n}\n";
const MAKEFILE = 'all:\n\t@echo build step 1\n\t@sleep 1\n\t@echo build step 2\n\t@sleep 1\n\t@echo build done\n\nslow:\n\t@echo slow build started\n\t@sleep 300\n';

let browser: Browser;
let context: BrowserContext;
let page: Page;
let key: string;
let home: string;
/** Errors the page logged: a CSP refusal or an uncaught exception fails the file at the end. */
const pageErrors: string[] = [];

async function git(dir: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', ['-c', 'user.name=Ada', '-c', 'user.email=ada@example.com', ...args], { cwd: dir });
  return stdout;
}

/** The project the user uploads: a folder on disk, committed so the patch can be applied to it. */
async function project(): Promise<string> {
  const dir = join(home, 'greeter');
  await mkdir(join(dir, 'src'), { recursive: true });
  await writeFile(join(dir, 'src/greet.js'), GREET);
  await writeFile(join(dir, 'Makefile'), MAKEFILE);
  await writeFile(join(dir, 'README.md'), '# Greeter\n\nSays hello.\n');
  await git(dir, 'init', '-q');
  await git(dir, 'add', '.');
  await git(dir, 'commit', '-qm', 'start');
  return dir;
}

const STORED_KEY = "localStorage.getItem('weft.apiKey')";
const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'weft-e2e-web-'));
  await mkdir(SCREENSHOTS, { recursive: true });
  key = await newUserKey(`web-${Date.now().toString(36)}`);
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  context.setDefaultTimeout(30_000);
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // A refused key is a 401 the browser itself reports; that one is expected.
    if (message.type() === 'error' && !/status of 401/.test(message.text())) pageErrors.push(`console: ${message.text()}`);
  });
});

afterAll(async () => {
  await browser?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('the web client in Chromium, served by the gateway', () => {
  it('is served by the gateway at / with a strict content policy, and nothing else under /assets', async () => {
    const index = await fetch(`${gatewayUrl}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-security-policy')).toContain("script-src 'self'");
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(await index.text())?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${gatewayUrl}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    const missing = await fetch(`${gatewayUrl}/assets/nope.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('COMMON.NOT_FOUND');
    expect((await fetch(`${gatewayUrl}/assets/%2e%2e/index.html`)).status).toBe(404);
  });

  it('refuses a wrong key with a clear message, then signs in with a good one', async () => {
    await page.goto(`${gatewayUrl}/`);
    await page.getByLabel('API key').fill('weft_not-a-real-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(textOf(page.getByRole('alert')), eventually).toContain('The gateway refused this key');
    await shot('login-error');
    expect(await accessibilityViolations(page)).toEqual([]);

    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Signed in as').waitFor();
    expect(await page.evaluate(STORED_KEY)).toBe(key);
  });

  it('uploads a folder, runs a turn with a diff, two permission answers and live output, resumes after a reload, and exports a patch that applies', async () => {
    const dir = await project();
    await page.getByRole('link', { name: 'New session' }).click();
    await page.getByLabel('Model').selectOption(MODEL);
    await page.getByLabel('Title (optional)').fill('Greet from Weft');
    await page.getByLabel('Choose a folder, or drop one here').setInputFiles(dir);
    // .git is left out of the upload.
    await page.getByText(/greeter: 3 files/).waitFor();
    await shot('new-session');
    await page.getByRole('button', { name: 'Create session' }).click();
    await expect.poll(() => page.url(), eventually).toMatch(/#\/sessions\/ses_/);
    const sessionId = decodeURIComponent(page.url().split('/').pop()!);
    await page.getByRole('heading', { name: 'Greet from Weft' }).waitFor();
    await page.getByRole('navigation', { name: 'Sessions' }).getByText('Greet from Weft').waitFor();
    // The tree shows the uploaded files before the agent has done anything.
    const files = page.getByRole('complementary', { name: 'Workspace' });
    await files.getByRole('button', { name: 'Makefile' }).waitFor();

    await page.getByLabel('Message to the agent').fill('Make the greeting say it is from Weft, then build.');
    await page.getByLabel('Message to the agent').press('Enter');

    // The edit asks first; its card already shows the change it wants to make.
    const edit = page.getByRole('article', { name: 'Tool call edit_file' });
    const editAsk = edit.getByRole('group', { name: 'Permission request for edit_file' });
    await editAsk.waitFor();
    await expect.poll(textOf(edit.getByRole('figure', { name: 'Changes to src/greet.js' })), eventually).toContain('Hello from Weft');
    await editAsk.getByRole('button', { name: 'Allow once' }).click();
    await edit.getByText('Allowed by you').waitFor();
    // The real diff from the tools worker, with its context line.
    await expect.poll(textOf(edit.getByRole('figure', { name: 'Changes to src/greet.js' })), eventually).toContain('export function greet(name)');

    const make = page.getByRole('article', { name: 'Tool call run_command' });
    const makeAsk = make.getByRole('group', { name: 'Permission request for run_command' });
    await makeAsk.waitFor();
    await expect.poll(textOf(makeAsk), eventually).toContain('Bash(make)');

    // Reload while the turn waits: the page replays the log and shows everything once.
    await page.reload();
    await expect.poll(textOf(page.getByTestId('stream-status')), eventually).toBe('Live');
    await makeAsk.waitFor();
    await expect.poll(() => page.getByRole('article', { name: 'Tool call edit_file' }).count(), eventually).toBe(1);
    await expect.poll(() => page.getByText('Let me look at the project first.').count(), eventually).toBe(1);
    await makeAsk.getByRole('button', { name: 'Allow always' }).click();
    await make.getByText('rule stored: Bash(make)').waitFor();

    // Output arrives while make runs, before its result.
    await expect.poll(textOf(make.getByLabel('Output of make')), eventually).toContain('build step 1');
    await expect.poll(textOf(make.locator('.badge')), { ...eventually, timeout: 60_000 }).toContain('exit 0');
    await expect.poll(textOf(make.getByLabel('Result of run_command')), eventually).toContain('build done');
    const answer = page.locator('.bubble.assistant.final');
    await expect.poll(textOf(answer), eventually).toContain('now greets from Weft');
    await expect.poll(textOf(answer.locator('strong')), eventually).toBe('from Weft');
    await expect.poll(textOf(answer.locator('pre code.hljs')), eventually).toContain("return 'Hello from Weft, ' + name;");
    await expect.poll(() => page.getByRole('button', { name: /Cancel turn/ }).count(), eventually).toBe(0);

    // Every event of the log once: the page applied as many as the API streams, one card per call.
    const log = await readTurns(key, sessionId);
    expect(log.at(-1)?.type).toBe('turn.completed');
    const timeline = page.getByRole('list', { name: 'Conversation' });
    await expect.poll(() => timeline.getAttribute('data-applied-events'), eventually).toBe(String(log.length));
    await expect.poll(() => timeline.getAttribute('data-last-event-id'), eventually).toBe(log.at(-1)!.id);
    const calls = log.filter((e) => e.type === 'tool.called').map((e) => e.call.id);
    expect(calls).toHaveLength(3);
    for (const callId of calls) await expect.poll(() => page.locator(`[data-call-id="${callId}"]`).count(), eventually).toBe(1);
    const final = log.find((e) => e.type === 'message.completed');
    expect(await answer.innerText()).toContain('now greets from Weft');
    expect(final?.type === 'message.completed' && final.content).toContain('**from Weft**');
    await expect.poll(() => page.getByText('build step 2').count(), eventually).toBe(1);

    // The tree marks what the turn changed; the viewer shows the new text.
    await files.locator('li[data-path="src"][data-changed]').waitFor();
    await files.getByRole('button', { name: 'src/' }).click();
    await files.getByRole('button', { name: /greet\.js/ }).click();
    await files.locator('li[data-path="src/greet.js"][data-changed]').waitFor();
    await expect.poll(textOf(page.getByLabel('Contents of src/greet.js')), eventually).toContain("return 'Hello from Weft, ' + name;");
    // The line the edit changed (the second) is marked beside the line numbers.
    await expect.poll(() => page.getByLabel('Contents of src/greet.js').getAttribute('data-changed-lines'), eventually).toBe('2');
    // Its bar sits left of the number, not over it (a one-digit gutter had no room for both).
    const numberClear = await page.evaluate<number>(`(() => {
      const line = document.querySelector('.code .gutter li.changed');
      const text = document.createRange();
      text.selectNodeContents(line);
      return text.getBoundingClientRect().left - line.getBoundingClientRect().left;
    })()`);
    expect(numberClear).toBeGreaterThanOrEqual(5);
    await shot('chat');
    expect(await accessibilityViolations(page)).toEqual([]);

    // The patch downloads and applies to the original checkout.
    const [download] = await Promise.all([page.waitForEvent('download'), files.getByRole('button', { name: 'Download patch' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^ws_.+\.patch$/);
    const patchFile = join(home, 'web.patch');
    await download.saveAs(patchFile);
    await git(dir, 'apply', '--check', patchFile);
    await git(dir, 'apply', patchFile);
    expect(await readFile(join(dir, 'src/greet.js'), 'utf8')).toBe(GREET.replace("'Hello, '", "'Hello from Weft, '"));

    // A narrow window: one column, nothing cut off.
    await page.setViewportSize({ width: 420, height: 900 });
    await page.getByLabel('Message to the agent').waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'narrow.png'), fullPage: false });
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await page.setViewportSize({ width: 1400, height: 900 });

    // Deleting the session asks once more, then it is gone from the list and the API.
    const nav = page.getByRole('navigation', { name: 'Sessions' });
    await nav.getByRole('button', { name: 'Delete session Greet from Weft' }).click();
    await nav.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => nav.getByText('Greet from Weft').count(), eventually).toBe(0);
    await expect.poll(() => page.url(), eventually).not.toMatch(/ses_/);
    const gone = await fetch(`${gatewayUrl}/v1/sessions/${sessionId}`, { headers: { authorization: `Bearer ${key}` } });
    expect(gone.status).toBe(404);
  });

  it('follows a long run across a dropped connection without doubling anything, and cancels it', async () => {
    await page.getByRole('link', { name: 'New session' }).click();
    await page.getByLabel('Model').selectOption('scripted/web-slow-build');
    await page.getByLabel('Use one of my workspaces').check();
    await expect.poll(textOf(page.getByLabel('Existing workspace')), eventually).toContain('greeter');
    await page.getByRole('button', { name: 'Create session' }).click();
    await expect.poll(() => page.url(), eventually).toMatch(/#\/sessions\/ses_/);
    const sessionId = decodeURIComponent(page.url().split('/').pop()!);
    await page.getByLabel('Message to the agent').fill('Run the slow build.');
    await page.getByRole('button', { name: 'Send' }).click();

    const make = page.getByRole('article', { name: 'Tool call run_command' });
    await make.getByRole('button', { name: 'Allow once' }).click();
    await expect.poll(textOf(make.getByLabel('Output of make slow')), eventually).toContain('slow build started');

    // window.stop() aborts the page's open fetches: the event stream drops and comes back from its last id.
    await page.evaluate('window.stop()');
    await expect.poll(textOf(page.getByTestId('stream-status')), eventually).toContain('Reconnecting');
    await expect.poll(textOf(page.getByTestId('stream-status')), eventually).toBe('Live');

    await page.getByRole('button', { name: 'Cancel turn' }).click();
    await page.getByText('The turn was cancelled.').waitFor();
    await expect.poll(() => page.getByRole('button', { name: /Cancel turn/ }).count(), eventually).toBe(0);
    const log = await readTurns(key, sessionId);
    expect(log.at(-1)?.type).toBe('turn.cancelled');
    const timeline = page.getByRole('list', { name: 'Conversation' });
    await expect.poll(() => timeline.getAttribute('data-applied-events'), eventually).toBe(String(log.length));
    await expect.poll(() => page.getByText('slow build started').count(), eventually).toBe(1);
    await expect.poll(() => page.getByText('Starting the slow build.').count(), eventually).toBe(1);
  });

  it('finds a session by search, renames it, and exports it as Markdown', async () => {
    // The slow-build session of the test before is the one left (the first was deleted).
    const list = page.getByRole('navigation', { name: 'Sessions' });
    const search = list.getByLabel('Search sessions');
    await search.fill('no such session');
    await list.getByText('No session matches “no such session”.').waitFor();
    expect(await list.getByRole('listitem').count()).toBe(0);
    // By its first message, whatever the case.
    await search.fill('SLOW build');
    await expect.poll(() => list.getByRole('listitem').count(), eventually).toBe(1);
    await list.getByRole('link', { name: /Run the slow build/ }).click();
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('Session title').fill('Slow build, renamed');
    await shot('session-rename');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Slow build, renamed' }).waitFor();
    await list.getByText('Slow build, renamed').waitFor();
    // By its new title, and it stays after a reload.
    await search.fill('renamed');
    await expect.poll(() => list.getByRole('listitem').count(), eventually).toBe(1);
    await page.reload();
    await page.getByRole('heading', { name: 'Slow build, renamed' }).waitFor();

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export Markdown' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^ses_[A-Za-z0-9_-]+\.md$/);
    const markdown = await readFile(await file.path(), 'utf8');
    expect(markdown.split('\n')[0]).toBe('# Slow build, renamed');
    expect(markdown).toContain('Run the slow build.');
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('uploads a zip, runs a planning turn whose subtasks tick off in two tabs at once, keeps a note, and runs a chain from its form', async () => {
    const encode = (text: string) => new TextEncoder().encode(text);
    const chain = 'description: list a folder\ninputs:\n  folder: { description: the folder to list, default: . }\nsteps:\n  - name: list\n    tool: list_directory\n    arguments: { path: "{{ inputs.folder }}" }\n';
    // As a downloaded repository comes: everything in one folder, which the page takes off.
    const zip = zipSync({ 'survey-main/README.md': encode('# Survey\n'), 'survey-main/src/a.txt': encode('a\n'), 'survey-main/.weft/chains/list.yaml': encode(chain) });
    const zipPath = join(home, 'survey-main.zip');
    await writeFile(zipPath, zip);

    await page.getByRole('link', { name: 'New session' }).click();
    await page.getByLabel('Model').selectOption('scripted/planner');
    await page.getByLabel('Title (optional)').fill('Survey by plan');
    await page.getByLabel('Upload an archive (.tar.gz, .tgz, .tar, .zip)').check();
    await page.getByLabel('Choose an archive, or drop one here').setInputFiles(zipPath);
    await page.getByText(/survey-main\.zip: /).waitFor();
    await page.getByRole('button', { name: 'Create session' }).click();
    await expect.poll(() => page.url(), eventually).toMatch(/#\/sessions\/ses_/);
    const sessionId = decodeURIComponent(page.url().split('/').pop()!);
    const files = page.getByRole('complementary', { name: 'Workspace' });
    await files.locator('li[data-path="README.md"]').waitFor();

    // A second tab on the same session follows the same log.
    const second = await context.newPage();
    await second.goto(page.url());
    await second.getByRole('heading', { name: 'Survey by plan' }).waitFor();

    await page.getByLabel('Plan first').check();
    await page.getByLabel('Message to the agent').fill('Survey the workspace.');
    await page.getByRole('button', { name: 'Send' }).click();
    for (const tab of [page, second]) {
      // Exactly: the chat's own region is named after the session ("Survey by plan").
      const plan = tab.getByRole('region', { name: 'Plan', exact: true });
      await expect.poll(textOf(plan), { ...eventually, timeout: 60_000 }).toContain('2 of 2 subtasks done');
      expect(await plan.locator('[data-status="completed"]').count()).toBe(2);
      await expect.poll(textOf(tab.locator('[data-thread-id] summary').first()), eventually).toContain('Subtask 1 of 2: Survey');
    }
    // The subtasks' JSON the model was asked for is the plan card's, never text of a bubble.
    expect(await page.locator('.bubble.assistant').filter({ hasText: '"subtasks"' }).count()).toBe(0);
    // The survey's listing is folded under its subtask.
    const survey = page.locator('[data-thread-id]').first();
    await survey.locator('summary').first().click();
    await survey.getByRole('article', { name: 'Tool call list_directory' }).waitFor();

    // Notes: added here, read back from the API, seen by the other tab after a reload.
    // Empty notes start folded (the files get the room); a click opens them.
    const notes = page.getByRole('region', { name: 'Notes', exact: true });
    await notes.locator('summary').click();
    await notes.getByLabel('Add a note').fill('The survey lists src/ only.');
    await notes.getByRole('button', { name: 'Add note' }).click();
    await notes.getByText('The survey lists src/ only.').waitFor();
    const workspaceId = ((await (await fetch(`${gatewayUrl}/v1/sessions/${sessionId}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { workspaceId: string }).workspaceId;
    const stored = (await (await fetch(`${gatewayUrl}/v1/workspaces/${workspaceId}/notes`, { headers: { authorization: `Bearer ${key}` } })).json()) as { notes: Array<{ text: string }> };
    expect(stored.notes.map((n) => n.text)).toEqual(['The survey lists src/ only.']);

    // The chain from the zip's .weft/chains, run from its form with an input.
    const chains = page.getByRole('region', { name: 'Chains', exact: true });
    await chains.getByRole('button', { name: 'list' }).click();
    await chains.getByLabel('folder').fill('src');
    await chains.getByRole('button', { name: 'Run chain' }).click();
    await expect.poll(textOf(page.locator('.bubble.assistant.final').last()), { ...eventually, timeout: 60_000 }).toContain('a.txt');
    await shot('plan-notes-chains');

    // Both tabs applied every event of both turns once.
    const log = await readTurns(key, sessionId, 2);
    expect(log.filter((e) => e.type === 'turn.completed')).toHaveLength(2);
    for (const tab of [page, second]) {
      const timeline = tab.getByRole('list', { name: 'Conversation' });
      await expect.poll(() => timeline.getAttribute('data-applied-events'), eventually).toBe(String(log.length));
      await expect.poll(() => timeline.getAttribute('data-last-event-id'), eventually).toBe(log.at(-1)!.id);
    }
    await second.reload();
    await second.getByRole('region', { name: 'Notes', exact: true }).getByText('The survey lists src/ only.').waitFor();
    await second.close();
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it("imports a workspace from git, offered because the server allows the host, and shows git's refusal as it is", async () => {
    await page.getByRole('link', { name: 'New session' }).click();
    await page.getByLabel('Model').selectOption(MODEL);
    await page.getByLabel('Import from git').check();
    await page.getByText('This server clones from gitserver').waitFor();
    // A repository the server cannot find: git's reason, not a blank page.
    await page.getByLabel('Repository URL').fill('git://gitserver/missing');
    await page.getByRole('button', { name: 'Create session' }).click();
    await expect.poll(textOf(page.getByRole('alert')), eventually).toMatch(/missing|not found|does not appear/i);
    // The browser logs the refused request itself; that one was meant.
    await expect.poll(() => pageErrors.findIndex((e) => /status of 400/.test(e)), eventually).toBeGreaterThanOrEqual(0);
    pageErrors.splice(pageErrors.findIndex((e) => /status of 400/.test(e)), 1);
    await page.getByLabel('Repository URL').fill('git://gitserver/demo');
    await page.getByLabel('Branch or tag (optional)').fill('main');
    await page.getByRole('button', { name: 'Create session' }).click();
    await expect.poll(() => page.url(), eventually).toMatch(/#\/sessions\/ses_/);
    const files = page.getByRole('complementary', { name: 'Workspace' });
    await files.locator('li[data-path="README.md"]').waitFor();
    await files.locator('li[data-path="src"]').waitFor();
    expect(await files.locator('li[data-path=".git"]').count()).toBe(0);
  });

  it('keeps the key across a reload, signs out, and logged no page errors', async () => {
    await page.reload();
    await page.getByText('Signed in as').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(STORED_KEY)).toBeNull();
    expect(pageErrors).toEqual([]);
  });
});
