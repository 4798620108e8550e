import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call } from './support/api';
import { accessibilityViolations, eventually, launchChromium, textOf } from './support/browser';
import { gatewayUrl } from './support/stack';
import { SCREENSHOTS } from '../test/support/screenshots';

/**
 * The Me and Admin pages of the web client in Debian's Chromium, against the compose stack: an
 * admin user makes a member, their key and a quota, and reads usage and the fleet; the member
 * edits their instructions, makes and revokes a key of their own, reads their usage and limits,
 * and is told the Admin page is not theirs.
 */
const suffix = Date.now().toString(36);
const LEAD = `lead-${suffix}`;
const MEMBER = `dev-${suffix}`;

let browser: Browser;
/** Errors the pages logged: an uncaught exception or a CSP refusal fails the file at the end. */
const pageErrors: string[] = [];
let leadKey: string;
/** Made by the admin on the Admin page, then used by the member to sign in. */
let member: { id: string; key: string };

async function signedInPage(key: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gatewayUrl });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(`console: ${message.text()}`);
  });
  await page.goto(`${gatewayUrl}/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('Signed in as').waitFor();
  return { context, page };
}

/** The whole page at a tall window's size, from the top (the content scrolls inside it). */
async function screenshot(page: Page, name: string, height: number): Promise<void> {
  const size = page.viewportSize() ?? { width: 1400, height: 900 };
  await page.setViewportSize({ width: 1280, height });
  await page.evaluate("document.getElementById('main').scrollTo(0, 0)");
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
  await page.setViewportSize(size);
}

/** The key a page shows once, read from its field. */
async function shownKey(page: Page): Promise<string> {
  const field = page.getByLabel('The new key');
  await field.waitFor();
  return field.inputValue();
}

beforeAll(async () => {
  await mkdir(SCREENSHOTS, { recursive: true });
  const lead = await admin('POST', '/v1/admin/users', { name: LEAD, role: 'admin' });
  leadKey = (await admin('POST', `/v1/admin/users/${(lead.body as { id: string }).id}/keys`, { name: 'browser' })).body.key as string;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

describe('the Me and Admin pages in Chromium', () => {
  it('lets an admin create a user and a key for them, override a quota, and read usage (also as CSV) and the fleet', async () => {
    const { context, page } = await signedInPage(leadKey);
    const pages = page.getByRole('navigation', { name: 'Pages' });
    await pages.getByRole('link', { name: 'Admin' }).click();
    await page.getByRole('heading', { name: 'Users', exact: true }).waitFor();
    await page.getByRole('row').filter({ hasText: LEAD }).getByRole('cell', { name: 'admin' }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    // A new user opens on their own page, where their first key is made and shown once.
    await page.getByLabel('Name', { exact: true }).fill(MEMBER);
    await page.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('heading', { name: MEMBER, exact: true }).waitFor();
    const memberId = decodeURIComponent(page.url().split('/').pop()!);
    expect(memberId).toMatch(/^usr_/);
    await page.getByLabel('Key name').fill('laptop');
    await page.getByLabel('Expires').selectOption({ label: 'In 90 days' });
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await shownKey(page);
    expect(key).toMatch(/^weft_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(key);
    member = { id: memberId, key };
    expect(await call('GET', '/v1/me', key)).toMatchObject({ status: 200, body: { id: memberId, name: MEMBER, role: 'member' } });
    await page.getByRole('button', { name: 'Done' }).click();
    const keyRow = page.getByRole('row').filter({ hasText: 'laptop' });
    await expect.poll(textOf(keyRow), eventually).toMatch(/expires \d{4}-\d{2}-\d{2} \(90 days\)/);
    expect(await keyRow.textContent()).not.toContain(key);

    // A quota override: a bad value is named before anything is sent, a good one is saved and in effect.
    await page.getByLabel('Tokens per day').fill('lots');
    await page.getByRole('button', { name: 'Save quotas' }).click();
    await page.getByText('a whole number, or empty for the default').waitFor();
    await page.getByLabel('Tokens per day').fill('50000');
    await page.getByRole('button', { name: 'Save quotas' }).click();
    await page.getByText('Saved: the new limits apply from the next request.').waitFor();
    await expect.poll(textOf(page.getByRole('row').filter({ hasText: 'Tokens per day' })), eventually).toContain('50,000');
    expect((await admin('GET', `/v1/admin/users/${memberId}/limits`)).body).toMatchObject({ overrides: { tokensPerDay: 50000 }, effective: { tokensPerDay: 50000 } });
    await screenshot(page, 'web-admin', 900);
    expect(await accessibilityViolations(page)).toEqual([]);

    // The member spends some tokens through the OpenAI-compatible API; the usage page shows them.
    const completion = await call('POST', '/openai/v1/chat/completions', key, { model: 'tiny', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 });
    expect(completion.status).toBe(200);
    await expect.poll(async () => ((await call('GET', '/v1/me/usage', key)).body.rows as unknown[]).length, eventually).toBe(1);

    const adminNav = page.getByRole('navigation', { name: 'Admin' });
    await adminNav.getByRole('link', { name: 'Usage' }).click();
    await page.getByLabel('User', { exact: true }).selectOption({ label: MEMBER });
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    const usageRows = page.getByRole('table', { name: /^Usage from/ }).getByRole('row');
    await expect.poll(textOf(usageRows.filter({ hasText: 'tiny' })), eventually).toContain(MEMBER);
    expect(await accessibilityViolations(page)).toEqual([]);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^weft-usage-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = await readFile((await download.path())!, 'utf8');
    const [header, ...lines] = csv.trim().split('\n');
    expect(header).toBe('date,userId,model,turns,generations,promptTokens,cachedTokens,evaluatedTokens,completionTokens,toolCalls,sandboxRuns,sandboxMs');
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^\\d{4}-\\d{2}-\\d{2},${memberId},tiny,0,1,`))]);

    await adminNav.getByRole('link', { name: 'Fleet' }).click();
    const fleet = page.getByRole('region', { name: 'Inference fleet' });
    await expect.poll(textOf(fleet), eventually).toMatch(/\d+ workers? .*models loaded: .*tiny/);
    await expect.poll(textOf(page.getByRole('listitem').filter({ hasText: 'ready' }).first()), eventually).toContain('tiny');
    expect(await accessibilityViolations(page)).toEqual([]);
    await context.close();
  });

  it('lets a member edit their instructions, create and revoke a key of their own, and read their usage and limits, but not the Admin page', async () => {
    const { context, page } = await signedInPage(member.key);
    const pages = page.getByRole('navigation', { name: 'Pages' });
    expect(await pages.getByRole('link', { name: 'Admin' }).count()).toBe(0);
    await pages.getByRole('link', { name: 'Me' }).click();
    await page.getByRole('heading', { name: 'Me', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Edit instructions' }).click();
    await page.getByLabel(/^Instructions/).fill('Answer in British English.\nRun the tests before you say done.');
    await page.getByRole('button', { name: 'Save instructions' }).click();
    await page.getByText('Saved. New turns of every session use them.').waitFor();
    await page.getByText('Run the tests before you say done.').waitFor();
    expect((await call('GET', '/v1/me/instructions', member.key)).body).toMatchObject({ content: 'Answer in British English.\nRun the tests before you say done.' });

    // The key this browser came with is marked and cannot be revoked here.
    const keys = page.getByRole('table', { name: 'My keys' });
    const ciRow = keys.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'ci', exact: true }) });
    await expect.poll(textOf(keys.getByRole('row').filter({ hasText: 'laptop' })), eventually).toContain('this browser');
    expect(await keys.getByRole('button', { name: 'Revoke key laptop' }).count()).toBe(0);

    await page.getByLabel('Key name').fill('ci');
    await page.getByLabel('Expires').selectOption({ label: 'After a chosen day' });
    await page.getByLabel('Last day (UTC)').fill('2099-12-31');
    await page.getByRole('button', { name: 'Create key' }).click();
    const ciKey = await shownKey(page);
    expect(await call('GET', '/v1/me', ciKey)).toMatchObject({ status: 200, body: { id: member.id } });
    await page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(textOf(ciRow), eventually).toContain('expires 2100-01-01');

    await keys.getByRole('button', { name: 'Revoke key ci' }).click();
    await keys.getByRole('button', { name: 'Revoke now' }).click();
    await expect.poll(() => ciRow.count(), eventually).toBe(0);
    expect(await call('GET', '/v1/me', ciKey)).toMatchObject({ status: 401 });
    expect((await call('GET', '/v1/me', member.key)).status).toBe(200);

    // Usage: today's row of the completion the member made; limits: the admin's override.
    const usage = page.getByRole('table', { name: /^My usage from/ });
    await expect.poll(textOf(usage.getByRole('row').filter({ hasText: 'tiny' })), eventually).toMatch(/^\d{4}-\d{2}-\d{2}tiny0/);
    await usage.getByRole('row').filter({ hasText: 'Total' }).waitFor();
    const limits = page.getByRole('region', { name: 'My limits' });
    await expect.poll(textOf(limits), eventually).toContain('Tokens per day50,000');
    await screenshot(page, 'web-me', 1350);
    expect(await accessibilityViolations(page)).toEqual([]);

    // A narrow window: one column, nothing cut off (wide tables scroll in their own box).
    await page.setViewportSize({ width: 420, height: 900 });
    await page.getByRole('heading', { name: 'My keys' }).waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await page.setViewportSize({ width: 1400, height: 900 });

    // The Admin page, opened by its address, says it is for admins instead of showing nothing.
    await page.goto(`${gatewayUrl}/#/admin`);
    await expect.poll(textOf(page.getByRole('alert')), eventually).toContain('This page is for admin users');
    expect(await accessibilityViolations(page)).toEqual([]);
    expect((await call('GET', '/v1/admin/users', member.key)).status).toBe(403);
    await context.close();
  });

  it('logged no errors in any page', () => {
    expect(pageErrors).toEqual([]);
  });
});
