import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, weft } from '../apps/cli/src/testing/built-cli';
import { makeTestModel } from '../apps/inference/src/testing/worker-harness';
import { type ModelFileServer, startModelFileServer } from '../test/support/model-file-server';
import { call } from './support/api';
import { eventually, launchChromium, textOf } from './support/browser';
import { compose, gatewayUrl, stackEnv } from './support/stack';

/**
 * The README's first run, nothing edited by hand: the stack is up (global setup), `weft setup` as
 * the admin, `weft admin models pull <URL>` from an HTTP server in this test standing in for the
 * hub (serving the project's generated GGUF), and a session answered by the pulled model.
 */
const FILE = 'weft-first-run.gguf';
const MODEL = 'weft-first-run';

let home: string;
let server: ModelFileServer;
/** This host as the inference container reaches it: the compose network's gateway address. */
let hostAddress: string;

/** A port nothing listens on: one the kernel just handed out and that was closed again. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '0.0.0.0', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const savedLogin = () => ({ XDG_CONFIG_HOME: join(home, 'config'), HOME: home });

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'weft-e2e-first-run-'));
  // A trained context of 16384 (the generator's flag), as the stack's own tiny model: an agent turn's prompt takes ~6k of its byte-level tokens.
  const gguf = await makeTestModel(home, FILE, ['--context', '16384']);
  [server] = await Promise.all([startModelFileServer(gguf, FILE, { listenAll: true }), buildCli()]);
  const inference = compose('ps', '-q', 'inference').trim();
  const network = execFileSync('docker', ['inspect', '--format', '{{range $name, $n := .NetworkSettings.Networks}}{{$n.Gateway}} {{end}}', inference], { encoding: 'utf8' });
  hostAddress = network.trim().split(/\s+/)[0] ?? '';
  // A run of this file beside a stack that kept a former pull: start from the README's state.
  await call('DELETE', `/v1/admin/models/${MODEL}`, stackEnv.WEFT_ADMIN_TOKEN);
});

afterAll(async () => {
  await call('DELETE', `/v1/admin/models/${MODEL}`, stackEnv.WEFT_ADMIN_TOKEN);
  await server?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('the first run, as the README tells it', () => {
  let url: string;

  it('sets up as the admin, who is offered coding models to pull', async () => {
    const setup = await weft(['setup', '--yes', '--url', gatewayUrl, '--name', `first-admin-${Date.now()}`], { ...savedLogin(), WEFT_ADMIN_TOKEN: stackEnv.WEFT_ADMIN_TOKEN });
    expect(setup.code, setup.stdout + setup.stderr).toBe(0);
    expect(setup.stdout).toMatch(/^✓ created user first-admin-\d+ \(usr_\S+\) and a key/m);
    expect(setup.stdout).toContain("! no model pulled yet (the stack's demo model tiny has random weights: its answers are noise). Coding models for the ");
    expect(setup.stdout).toContain('pull one: weft admin models pull hf:');
    url = `http://${hostAddress}:${server.port}/files/${FILE}`;
  });

  it('ends a pull with a wrong checksum or from an unreachable host with a clear error, nothing registered', async () => {
    const wrong = await weft(['admin', 'models', 'pull', url, '--sha256', '0'.repeat(64)], savedLogin());
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`has SHA-256 ${server.sha256}, not the expected ${'0'.repeat(64)} (from --sha256): it is deleted and nothing was registered (INFERENCE.MODEL_DOWNLOAD_FAILED)`);
    const closed = await closedPort();
    const nowhere = await weft(['admin', 'models', 'pull', `http://${hostAddress}:${closed}/${FILE}`], savedLogin());
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain(`Cannot reach http://${hostAddress}:${closed}/${FILE} (fetch failed: ECONNREFUSED): check the address, the network, and HF_ENDPOINT for hf: sources (WEFT_HF_ENDPOINT in the stack's .env) (INFERENCE.MODEL_DOWNLOAD_FAILED)`);
    expect((await weft(['admin', 'models', 'list'], savedLogin())).stdout).not.toContain(MODEL);
  });

  it('pulls the model from the URL and registers it with what its GGUF says', async () => {
    const pulled = await weft(['admin', 'models', 'pull', url], savedLogin());
    expect(pulled.code, pulled.stdout + pulled.stderr).toBe(0);
    expect(pulled.stderr).toContain(`pulling ${FILE} as "${MODEL}" from ${url} (${(server.size / 1024).toFixed(1)} KiB; checksum: none published`);
    expect(pulled.stdout).toContain(`✓ pulled "${MODEL}": ${FILE}, ${(server.size / 1024).toFixed(1)} KiB, sha256 ${server.sha256}`);
    expect(pulled.stdout).toContain('llama (weft-tiny-llama) · context 16384 of 16384 trained · chat template from the GGUF · tool calls: no (the template has no tools) · fill-in-the-middle: yes');
    expect(pulled.stdout).toContain(`Try it: weft run "summarise this project" --model ${MODEL}`);

    const listed = await weft(['admin', 'models', 'list', '--json'], savedLogin());
    const models = (JSON.parse(listed.stdout) as { models: { id: string; origin: string; sha256?: string }[] }).models;
    expect(models.find((m) => m.id === MODEL)).toMatchObject({ origin: 'pulled', sha256: server.sha256 });
  });

  // A turn of the tiny model is seconds on an idle machine; a CI host shared with other jobs is given room.
  it('answers a session with the pulled model, and setup then names it as the one to try', { timeout: 900_000 }, async () => {
    const project = await mkdtemp(join(home, 'project-'));
    await writeFile(join(project, 'README.md'), '# A small project\n');
    const session = await weft(['run', 'summarise this project', '--model', MODEL], savedLogin(), undefined, { cwd: project });
    expect(session.code, session.stdout + session.stderr).toBe(0);
    expect(session.stderr).toMatch(new RegExp(`session ses_\\S+ · workspace ws_\\S+ · model ${MODEL}`));
    expect(session.stdout).toContain('✓ done · ');

    const again = await weft(['setup', '--yes'], { ...savedLogin(), WEFT_URL: gatewayUrl });
    expect(again.stdout).toContain(`weft run "summarise this project" --model ${MODEL}`);
    expect(JSON.parse(await readFile(join(home, 'config', 'weft', 'config.json'), 'utf8'))).toMatchObject({ url: gatewayUrl });
  });
  it('removes the model and pulls it again from the web Admin page, with its progress', async () => {
    const { key } = JSON.parse(await readFile(join(home, 'config', 'weft', 'config.json'), 'utf8')) as { key: string };
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${gatewayUrl}/`);
      await page.getByLabel('API key').fill(key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Admin' }).click();
      await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Fleet' }).click();
      const panel = page.getByRole('region', { name: 'Models' });
      const row = panel.getByRole('row').filter({ hasText: MODEL });
      await expect.poll(textOf(row), eventually).toContain('pulled');

      page.once('dialog', (dialog) => void dialog.accept());
      await row.getByRole('button', { name: 'Remove' }).click();
      await expect.poll(() => row.count(), eventually).toBe(0);

      await panel.getByLabel(/^Source/).fill(url);
      await panel.getByLabel(/^Id/).fill(MODEL);
      await panel.getByRole('button', { name: 'Pull' }).click();
      await expect.poll(textOf(panel.getByRole('status')), { timeout: 120_000, interval: 250 }).toContain(`Pulled ${MODEL} (0.5 MiB, context 16384, tool calls no): it is served now.`);
      await expect.poll(textOf(row), eventually).toContain('pulled');
    } finally {
      await browser.close();
    }
  });
});
