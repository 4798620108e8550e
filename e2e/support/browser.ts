import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { type Browser, type Locator, type Page, chromium } from 'playwright-core';

/** Debian's `chromium` (no browser download is possible here); WEFT_E2E_CHROMIUM names another. */
const CHROMIUM = process.env.WEFT_E2E_CHROMIUM ?? '/usr/bin/chromium';

/** Chromium as root in a container, without a GPU, on a machine whose outbound network is closed; `extraArgs` add switches. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (or set WEFT_E2E_CHROMIUM)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
  });
}

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** axe-core's serious and critical findings in the page (evaluated, so the page's CSP does not stand in its way). */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  const source = await readFile(createRequire(__filename).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  // Strings, not functions: this file is type-checked without the DOM's types.
  const violations = await page.evaluate<Violation[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
       id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)) })))`,
  );
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id}: ${v.help} ${v.targets.join(' ')}`);
}

/** playwright-core has no retrying assertions: poll with vitest's. */
export const eventually = { timeout: 30_000, interval: 100 };

/** A locator's text for `expect.poll`, '' while it is not there (or not yet one element). */
export const textOf = (locator: Locator) => () => locator.textContent({ timeout: 1_000 }).then((t) => t ?? '', () => '');
