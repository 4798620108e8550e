import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { parse as parseToml } from 'smol-toml';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, ScriptedModelModule, scriptedWorld, sessionApi, startGatewayUnderTest, TEST_ADMIN_TOKEN } from '../../../../test/support/app-harnesses';
import type { CliContext } from '../context';
import { runCli } from '../program';

/**
 * `weft connect` in-process against the real gateway (real Redis and NATS, scripted models whose
 * context is 4096 tokens): the files it writes, the one request that checks them, and the model
 * lists the context window comes from.
 */
let gateway: GatewayUnderTest;
let api: ReturnType<typeof sessionApi>['api'];
let home: string;
let key: string;
let userCount = 0;

beforeAll(async () => {
  gateway = await startGatewayUnderTest(ScriptedModelModule);
  api = sessionApi(gateway.base).api;
});

afterAll(async () => {
  await gateway?.stop();
});

beforeEach(async (context) => {
  home = await mkdtemp(join(tmpdir(), 'weft-connect-int-'));
  const own = home;
  context.onTestFinished(() => rm(own, { recursive: true, force: true }));
  const user = await api('POST', '/v1/admin/users', TEST_ADMIN_TOKEN, { name: `connect-${++userCount}` });
  key = String((await api('POST', `/v1/admin/users/${String(user.json.id)}/keys`, TEST_ADMIN_TOKEN)).json.key);
});

async function weft(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const ctx: CliContext = {
    env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), WEFT_URL: gateway.base, WEFT_KEY: key, NO_COLOR: '1' },
    cwd: home,
    stdin: Readable.from([]),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    onInterrupt: () => () => undefined,
    exitCode: 0,
  };
  const code = await runCli(['node', 'weft', ...args], ctx);
  return { code, stdout, stderr };
}

const codexConfig = () => join(home, '.codex', 'config.toml');

describe('weft connect', () => {
  it('codex: writes the provider and the window, and checks them with one Responses request', async () => {
    const before = scriptedWorld.generateRequests.length;
    const result = await weft(['connect', 'codex']);

    expect(result.code, result.stderr).toBe(0);
    expect(parseToml(await readFile(codexConfig(), 'utf8'))).toEqual({
      model: 'tiny',
      model_provider: 'weft',
      model_context_window: 4096,
      model_max_output_tokens: 1024,
      model_providers: { weft: { name: 'Weft', base_url: `${gateway.base}/openai/v1`, wire_api: 'responses', experimental_bearer_token: key } },
    });
    const sent = scriptedWorld.generateRequests.slice(before);
    expect(sent.map((request) => [request.model, request.maxTokens])).toEqual([['tiny', 16]]);
    expect(result.stdout).toContain('Checked: tiny answered');
    expect(result.stdout).toContain(`To undo:\n  rm '${codexConfig()}'`);
    expect(result.stdout).not.toContain(key);
  });

  it('leaves an existing file as it was when nobody says yes, and fails', async () => {
    await mkdir(join(home, '.codex'), { recursive: true });
    await writeFile(codexConfig(), 'model = "gpt-5"\n');
    const result = await weft(['connect', 'codex']);

    expect(result.code).toBe(1);
    expect(result.stdout).toContain('-model = "gpt-5"');
    expect(result.stderr).toContain('run again with --yes');
    expect(await readFile(codexConfig(), 'utf8')).toBe('model = "gpt-5"\n');
  });

  it('claude --new-key: writes a new key of the user’s own, which the check request proves', async () => {
    const result = await weft(['connect', 'claude', '--new-key', 'laptop', '--model', 'senior']);

    expect(result.code, result.stderr).toBe(0);
    const { env } = JSON.parse(await readFile(join(home, '.claude', 'settings.json'), 'utf8')) as { env: Record<string, string> };
    expect(env).toMatchObject({ ANTHROPIC_BASE_URL: `${gateway.base}/anthropic`, ANTHROPIC_MODEL: 'senior', CLAUDE_CODE_AUTO_COMPACT_WINDOW: '4096' });
    expect(env.ANTHROPIC_AUTH_TOKEN).not.toBe(key);
    const keys = await api('GET', '/v1/me/keys', env.ANTHROPIC_AUTH_TOKEN);
    expect(keys.text).toContain('laptop');
  });

  it('sdk: prints both SDKs\' clients for this Weft, without the key, after checking it', async () => {
    const result = await weft(['connect', 'sdk']);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`new OpenAI({ baseURL: '${gateway.base}/openai/v1', apiKey: process.env.WEFT_API_KEY })`);
    expect(result.stdout).toContain(`new Anthropic({ baseURL: '${gateway.base}/anthropic', apiKey: process.env.WEFT_API_KEY })`);
    expect(result.stdout).not.toContain(key);
    expect(result.stderr).toContain('Checked: tiny answered');
  });

  it('refuses a model the gateway does not serve, naming those it does', async () => {
    const result = await weft(['connect', 'opencode', '--model', 'nope']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no model "nope" on this gateway; it serves: tiny, senior, junior');
  });
});

describe('the model lists carry the window and the output limit', () => {
  it('in each API’s shape, as the official SDKs read them', async () => {
    const weftList = await api('GET', '/v1/models', key);
    expect(weftList.json.models).toContainEqual(expect.objectContaining({ id: 'tiny', contextSize: 4096, maxOutputTokens: 4096 }));

    const openai = new OpenAI({ baseURL: `${gateway.base}/openai/v1`, apiKey: key });
    const openAiModel = (await openai.models.list()).data.find((m) => m.id === 'tiny');
    expect(openAiModel).toMatchObject({ context_window: 4096, context_length: 4096, max_model_len: 4096, max_output_tokens: 4096 });

    const anthropic = new Anthropic({ baseURL: `${gateway.base}/anthropic`, apiKey: key });
    const anthropicModel = (await anthropic.models.list()).data.find((m) => m.id === 'tiny');
    expect(anthropicModel).toMatchObject({ max_input_tokens: 4096, max_tokens: 4096 });
  });
});
