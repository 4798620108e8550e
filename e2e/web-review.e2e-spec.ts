import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUserKey } from './support/api';
import { eventually, launchChromium, textOf } from './support/browser';
import { gatewayUrl } from './support/stack';
import { SCREENSHOTS } from '../test/support/screenshots';

/**
 * What a new team found rough in the page (issue #30), in Chromium against the compose stack. The
 * scripted model e2e/scripts/web-table.json reads for 4 s before its first word (as a long prompt's
 * prefill does), edits lines 6-8 of a 12-line file (asks first), answers with a Markdown table, then
 * answers a second message at length.
 */
const MODEL = 'scripted/web-table';
const LINES = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

let browser: Browser;
let page: Page;
let home: string;
const pageErrors: string[] = [];

const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
/** The non-empty line numbers of a rendered diff's gutter cells of one kind. */
const gutter = (diff: Locator, kind: 'insert' | 'delete' | 'normal') =>
  diff
    .locator(`td.diff-gutter-${kind}`)
    .allTextContents()
    .then((all) => all.map((t) => t.trim()).filter(Boolean));
/** How far (px) the bottom of the conversation's last entry is below the bottom of its visible area. */
const LAST_ENTRY_BELOW_FOLD = `(() => {
  const list = document.querySelector('.timeline');
  return Math.round(list.lastElementChild.getBoundingClientRect().bottom - list.getBoundingClientRect().bottom);
})()`;

async function project(): Promise<string> {
  const dir = join(home, 'review');
  await mkdir(join(dir, 'src'), { recursive: true });
  await writeFile(join(dir, 'src/lines.txt'), LINES);
  for (const i of [1, 2, 3]) await writeFile(join(dir, `src/module${i}.js`), `export const m${i} = ${i};\n`);
  await writeFile(join(dir, 'README.md'), '# Review\n');
  // What tools leave beside a project: the page folds these away.
  await mkdir(join(dir, '.pytest_cache/v/cache'), { recursive: true });
  await writeFile(join(dir, '.pytest_cache/v/cache/lastfailed'), '{}\n');
  await mkdir(join(dir, '__pycache__'), { recursive: true });
  await writeFile(join(dir, '__pycache__/m.cpython-311.pyc'), 'x');
  await mkdir(join(dir, '.weft'), { recursive: true });
  await writeFile(join(dir, '.weft/instructions.md'), 'Keep it short.\n');
  return dir;
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'weft-e2e-web-review-'));
  await mkdir(SCREENSHOTS, { recursive: true });
  const key = await newUserKey(`web-review-${Date.now().toString(36)}`);
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  context.setDefaultTimeout(30_000);
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(`console: ${message.text()}`);
  });
  await page.goto(`${gatewayUrl}/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('Signed in as').waitFor();
});

afterAll(async () => {
  await browser?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('the web page, as a new team first meets it (#30)', () => {
  it("folds tools' folders, shows the model reading its prompt, previews an edit at its real lines, rules a Markdown table and follows the answer", async () => {
    await page.getByRole('link', { name: 'New session' }).click();
    await page.getByLabel('Model').selectOption(MODEL);
    await page.getByLabel('Title (optional)').fill('Review the project');
    await page.getByLabel('Choose a folder, or drop one here').setInputFiles(await project());
    await page.getByRole('button', { name: 'Create session' }).click();
    await expect.poll(() => page.url(), eventually).toMatch(/#\/sessions\/ses_/);

    // .weft/ and the caches come last, folded under one entry, and open on demand.
    const files = page.getByRole('complementary', { name: 'Workspace' });
    await files.locator('li[data-path="README.md"]').waitFor();
    const group = files.getByRole('button', { name: /3 tool and cache folders/ });
    await expect.poll(textOf(group), eventually).toContain('__pycache__, .pytest_cache, .weft');
    expect(await files.locator('li[data-path=".pytest_cache"]').count()).toBe(0);
    expect(await files.locator('ul[aria-label="Workspace files"] > li').last().getAttribute('data-tool-folders')).toBe('');
    await group.click();
    await files.locator('li[data-path=".weft"]').waitFor();
    await group.click();
    await expect.poll(() => files.locator('li[data-path=".weft"]').count(), eventually).toBe(0);

    // While the model reads its prompt, the page says so and counts the seconds.
    await page.getByLabel('Message to the agent').fill('Rename lines 6 to 8, then survey the project.');
    await page.getByLabel('Message to the agent').press('Enter');
    const wait = page.getByTestId('model-wait');
    await expect.poll(textOf(wait), eventually).toContain(`${MODEL} is reading your message`);
    await expect.poll(() => wait.locator('[data-seconds]').getAttribute('data-seconds', { timeout: 1_000 }).then(Number, () => 0), eventually).toBeGreaterThanOrEqual(2);
    await shot('chat-prefill');

    // The edit asks first; its diff already has the file's line numbers and context around them.
    const edit = page.getByRole('article', { name: 'Tool call edit_file' });
    await edit.getByRole('group', { name: 'Permission request for edit_file' }).waitFor();
    expect(await wait.count()).toBe(0);
    const diff = edit.getByRole('figure', { name: 'Changes to src/lines.txt' });
    await expect.poll(() => gutter(diff, 'delete'), eventually).toEqual(['6', '7', '8']);
    expect(await gutter(diff, 'insert')).toEqual(['6', '7', '8']);
    expect(await gutter(diff, 'normal')).toEqual(['3', '3', '4', '4', '5', '5', '9', '9', '10', '10', '11', '11']);
    await shot('chat-permission');
    await edit.getByRole('button', { name: 'Allow once' }).click();
    await edit.getByText('Allowed by you').waitFor();
    // The tools worker's own diff, once done, has the same lines.
    await expect.poll(textOf(edit.locator('.badge')), eventually).toContain('done');
    expect(await gutter(diff, 'delete')).toEqual(['6', '7', '8']);
    expect(await gutter(diff, 'normal')).toHaveLength(12);

    // The answer's table is a table with ruled cells, and the answer's end is in view.
    const answer = page.locator('.bubble.assistant.final');
    await expect.poll(textOf(answer), { ...eventually, timeout: 60_000 }).toContain('That is the whole survey');
    const table = answer.locator('table');
    expect(await table.locator('tr').count()).toBe(9);
    expect(await table.locator('thead th').allTextContents()).toEqual(['File', 'Lines', 'Tested']);
    const cell = await page.evaluate<{ border: string; padding: string }>(`(() => {
      const td = document.querySelector('.bubble.assistant.final table tbody td');
      return { border: getComputedStyle(td).borderTopWidth, padding: getComputedStyle(td).paddingLeft };
    })()`);
    expect(cell.border).not.toBe('0px');
    expect(cell.padding).not.toBe('0px');
    await expect.poll(() => page.getByRole('button', { name: /Cancel turn/ }).count(), eventually).toBe(0);
    await expect.poll(() => page.evaluate<number>(LAST_ENTRY_BELOW_FOLD), eventually).toBeLessThanOrEqual(0);
    await expect.poll(textOf(page.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem')), eventually).not.toContain('working');
    await shot('chat-table');

    // Scrolled up to read, the reader sends another message: the view follows its answer to the end.
    await page.evaluate("document.querySelector('.timeline').scrollTop = 0");
    await page.getByLabel('Message to the agent').fill('Tell me more.');
    await page.getByLabel('Message to the agent').press('Enter');
    await expect.poll(textOf(page.locator('.bubble.assistant.final').last()), { ...eventually, timeout: 60_000 }).toContain('The end of the answer.');
    await expect.poll(() => page.getByRole('button', { name: /Cancel turn/ }).count(), eventually).toBe(0);
    await expect.poll(() => page.evaluate<number>(LAST_ENTRY_BELOW_FOLD), eventually).toBeLessThanOrEqual(0);

    // A file opened beside empty notes gets the room: the notes stay folded, the column widens.
    await files.getByRole('button', { name: 'src/' }).click();
    await files.getByRole('button', { name: /lines\.txt/ }).click();
    await expect.poll(() => page.getByLabel('Contents of src/lines.txt').getAttribute('data-changed-lines'), eventually).toBe('6,7,8');
    const notes = page.getByRole('region', { name: 'Notes', exact: true });
    expect(await notes.locator('details[open]').count()).toBe(0);
    const side = await page.locator('.side-column').boundingBox();
    const view = await page.locator('.session-view').boundingBox();
    expect(side!.width / view!.width).toBeGreaterThanOrEqual(0.38);
    expect(pageErrors).toEqual([]);
  });
});
