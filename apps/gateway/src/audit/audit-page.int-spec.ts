import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, eventually, launchChromium } from '../../../../e2e/support/browser';
import { SCREENSHOTS } from '../../../../test/support/screenshots';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from '../test/gateway-under-test';
import { ScriptedWorkersModule, script } from '../test/scripted-workers';
import { type SessionFixture, ofType, sessionApi } from '../test/session-api';

/** The Admin page's audit tab (apps/web/dist, `vite build`) in Chromium, against the in-process gateway on real Redis and NATS. */
let gateway: GatewayUnderTest;
let client: ReturnType<typeof sessionApi>;
let browser: Browser;

const WEB_DIR = resolve(__dirname, '../../../web');
const bash = (command: string) => ({ name: 'run_command', arguments: { command } });

/** The gateway serves apps/web/dist: build it when it is missing or older than the audit page. */
function ensureWebBuild(): void {
  const assets = join(WEB_DIR, 'dist/assets');
  const built = existsSync(assets) && readdirSync(assets).some((f) => f.endsWith('.js') && readFileSync(join(assets, f), 'utf8').includes('Audit trail'));
  if (!built) execFileSync(process.execPath, [resolve(__dirname, '../../../../node_modules/vite/bin/vite.js'), 'build'], { cwd: WEB_DIR, stdio: 'ignore', timeout: 300_000 });
}

/** A turn with a call a rule allows, one a rule denies, and one its owner allows when asked. */
async function turnWithTools(f: SessionFixture): Promise<void> {
  script(f.sessionId, [{ calls: [bash('pytest -q tests/'), bash('shutdown now')] }, { calls: [bash('pip install requests')] }, { text: 'done' }]);
  const { after } = await client.start(f, '/messages', { content: 'fix the failing test' });
  const asked = await client.follow(f, after, (e) => e.type === 'permission.requested');
  const requestId = ofType(asked, 'permission.requested')[0]?.requestId;
  await client.api('POST', `/v1/sessions/${f.sessionId}/permissions/${requestId}`, f.key, { decision: 'allow_once' });
  await client.follow(f, asked.at(-1)?.id ?? after);
}

beforeAll(async () => {
  ensureWebBuild();
  mkdirSync(SCREENSHOTS, { recursive: true });
  gateway = await startGatewayUnderTest(ScriptedWorkersModule, {
    INFERENCE_TIMEOUT_MS: '20000',
    PERMISSIONS_SERVER_RULES: JSON.stringify({ allow: ['Bash(pytest:*)'], deny: ['Bash(shutdown:*)'] }),
  });
  client = sessionApi(gateway.base);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
});

describe('the audit page', () => {
  it("lists the tool calls and admin actions with who decided and how they ended, and filters by session", async () => {
    const lead = await client.api('POST', '/v1/admin/users', TEST_ADMIN_TOKEN, { name: 'lead', role: 'admin' });
    const leadKey = String((await client.api('POST', `/v1/admin/users/${String(lead.json.id)}/keys`, TEST_ADMIN_TOKEN)).json.key);
    const grace = await client.fixture('grace');
    const alan = await client.fixture('alan');
    await turnWithTools(grace);
    await turnWithTools(alan);
    await client.api('PUT', `/v1/admin/users/${alan.userId}/limits`, leadKey, { tokensPerDay: 200000 });

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${gateway.base}/`);
    await page.getByLabel('API key').fill(leadKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Signed in as').waitFor(eventually);
    await page.goto(`${gateway.base}/#/admin/audit`);
    const table = page.getByRole('table', { name: 'Audit trail' });
    await table.waitFor(eventually);
    const first = table.locator('tbody tr').first();
    await expect.poll(() => first.textContent(), eventually).toContain('limits.set');
    expect(await first.textContent()).toContain('alan');

    await page.getByLabel('Session').fill(grace.sessionId);
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await expect.poll(() => table.locator('tbody tr').count(), eventually).toBe(3);
    const rows = await table.locator('tbody tr').allTextContents();
    expect(rows[0]).toContain('command="pip install requests"');
    expect(rows[0]).toContain('allowed by grace');
    expect(rows[1]).toContain('denied by server rule Bash(shutdown:*)');
    expect(rows[2]).toContain('allowed by server rule Bash(pytest:*)');
    expect(rows[2]).toContain('ok, exit 0');
    expect(await accessibilityViolations(page)).toEqual([]);

    await page.getByLabel('Session').fill('');
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await expect.poll(() => table.locator('tbody tr').count(), eventually).toBeGreaterThan(8);
    await page.evaluate("document.getElementById('main')?.scrollTo(0, 0)");
    await page.screenshot({ path: join(SCREENSHOTS, 'web-admin-audit.png') });
    await context.close();
  });
});
