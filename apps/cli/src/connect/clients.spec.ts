import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { RefusedError } from '../errors';
import { CONNECT_CLIENTS, type ClientApi, connectClient, type Homes } from './clients';
import { connectClientsTable } from './clients-table';
import { connectClientFiles, type ConnectIo } from './connect-flow';
import type { ConnectTarget } from './connect-target';

const KEY = 'weft_0123456789abcdefsecret';
const target: ConnectTarget = { url: 'http://weft.test:8080', key: KEY, model: 'qwen-coder-7b', contextWindow: 32768, replyTokens: 8192 };
const NOW = new Date('2026-11-28T19:00:00Z');

let homes: Homes;
let said: string[];
let answers: boolean[];
let checked: ClientApi[];

const io: ConnectIo = { say: (text) => void said.push(text), confirm: async () => answers.shift() ?? false };
const verify = async (api: ClientApi) => void checked.push(api);
const run = (id: string, yes = false) => connectClientFiles(io, client(id), homes, target, { yes, verify, now: NOW });
const output = () => said.join('\n');

function client(id: string) {
  const found = connectClient(id);
  if (!found) throw new Error(`no client ${id}`);
  return found;
}

async function written(id: string, index = 0): Promise<string> {
  return readFile(client(id).files(homes)[index]?.path ?? '', 'utf8');
}

async function seed(id: string, text: string, index = 0): Promise<string> {
  const path = client(id).files(homes)[index]?.path ?? '';
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

const envOf = (text: string) => Object.fromEntries(text.trim().split('\n').map((line) => line.replace(/^export /, '').split('=', 2) as [string, string]));

beforeEach(async () => {
  const home = await mkdtemp(join(tmpdir(), 'weft-connect-'));
  homes = { home, configHome: join(home, '.config') };
  said = [];
  answers = [];
  checked = [];
});

afterEach(async () => {
  await rm(homes.home, { recursive: true, force: true });
});

describe("each client's writer, into a fresh HOME", () => {
  it('claude: the env of ~/.claude/settings.json, with the window and reply budget', async () => {
    await run('claude');
    const settings = JSON.parse(await written('claude')) as { env: Record<string, string> };
    expect(settings.env).toEqual({
      ANTHROPIC_BASE_URL: 'http://weft.test:8080/anthropic',
      ANTHROPIC_AUTH_TOKEN: KEY,
      ANTHROPIC_MODEL: 'qwen-coder-7b',
      ANTHROPIC_DEFAULT_HAIKU_MODEL: 'qwen-coder-7b',
      ANTHROPIC_SMALL_FAST_MODEL: 'qwen-coder-7b',
      CLAUDE_CODE_MAX_CONTEXT_TOKENS: '32768',
      CLAUDE_CODE_AUTO_COMPACT_WINDOW: '32768',
      CLAUDE_CODE_MAX_OUTPUT_TOKENS: '8192',
    });
    expect(checked).toEqual(['anthropic']);
  });

  it('codex: a TOML provider speaking the Responses API, with the window', async () => {
    await run('codex');
    expect(parseToml(await written('codex'))).toEqual({
      model: 'qwen-coder-7b',
      model_provider: 'weft',
      model_context_window: 32768,
      model_max_output_tokens: 8192,
      model_providers: { weft: { name: 'Weft', base_url: 'http://weft.test:8080/openai/v1', wire_api: 'responses', experimental_bearer_token: KEY } },
    });
    expect(checked).toEqual(['responses']);
  });

  it.each(['opencode', 'kilo'])('%s: an openai-compatible provider with the model limits', async (id) => {
    await run(id);
    const config = JSON.parse(await written(id)) as Record<string, unknown>;
    expect(config).toMatchObject({
      model: 'weft/qwen-coder-7b',
      provider: { weft: { npm: '@ai-sdk/openai-compatible', options: { baseURL: 'http://weft.test:8080/openai/v1', apiKey: KEY }, models: { 'qwen-coder-7b': { limit: { context: 32768, output: 8192 } } } } },
    });
  });

  it('qwen: a model provider with the window, its key in env, in ~/.qwen/settings.json', async () => {
    await run('qwen');
    expect(JSON.parse(await written('qwen'))).toEqual({
      modelProviders: { openai: [{ id: 'qwen-coder-7b', name: 'qwen-coder-7b (Weft)', baseUrl: 'http://weft.test:8080/openai/v1', envKey: 'WEFT_API_KEY', generationConfig: { contextWindowSize: 32768 } }] },
      env: { WEFT_API_KEY: KEY },
      security: { auth: { selectedType: 'openai' } },
      model: { name: 'qwen-coder-7b' },
    });
  });

  it("qwen: keeps the user's other providers and replaces its own entry", async () => {
    const other = { id: 'qwen3:14b', baseUrl: 'http://localhost:11434/v1', envKey: 'OLLAMA_API_KEY' };
    await seed('qwen', JSON.stringify({ modelProviders: { openai: [other, { id: 'qwen-coder-7b', baseUrl: 'http://old/v1' }] } }));
    await run('qwen', true);
    const { modelProviders } = JSON.parse(await written('qwen')) as { modelProviders: { openai: Array<{ id: string; baseUrl: string }> } };
    expect(modelProviders.openai.map((entry) => [entry.id, entry.baseUrl])).toEqual([
      ['qwen3:14b', 'http://localhost:11434/v1'],
      ['qwen-coder-7b', 'http://weft.test:8080/openai/v1'],
    ]);
  });

  it('gemini: ~/.gemini/.env, checked through the Gemini API', async () => {
    await run('gemini');
    expect(envOf(await written('gemini'))).toEqual({ GOOGLE_GEMINI_BASE_URL: 'http://weft.test:8080/gemini', GEMINI_API_KEY: KEY, GEMINI_MODEL: 'qwen-coder-7b' });
    expect(checked).toEqual(['gemini']);
  });

  it("cline: the provider in globalState.json and the key in secrets.json", async () => {
    await run('cline');
    expect(JSON.parse(await written('cline', 0))).toMatchObject({ actModeApiProvider: 'openai', openAiBaseUrl: 'http://weft.test:8080/openai/v1', actModeOpenAiModelId: 'qwen-coder-7b', actModeOpenAiModelInfo: { contextWindow: 32768, maxTokens: 8192 } });
    expect(JSON.parse(await written('cline', 1))).toEqual({ openAiApiKey: KEY });
  });

  it('continue: a models entry in ~/.continue/config.yaml with the context length', async () => {
    await run('continue');
    expect(parseYaml(await written('continue'))).toMatchObject({
      schema: 'v1',
      models: [{ name: 'Weft qwen-coder-7b', provider: 'openai', apiBase: 'http://weft.test:8080/openai/v1', apiKey: KEY, defaultCompletionOptions: { contextLength: 32768, maxTokens: 8192 } }],
    });
  });

  it('copilot: a file of exports to source, and says so', async () => {
    await run('copilot');
    expect(envOf(await written('copilot'))).toEqual({ COPILOT_PROVIDER_BASE_URL: 'http://weft.test:8080/openai/v1', COPILOT_PROVIDER_TYPE: 'openai', COPILOT_PROVIDER_API_KEY: KEY, COPILOT_MODEL: 'qwen-coder-7b' });
    expect(output()).toContain(`. ${join(homes.configHome, 'weft', 'copilot.env')}`);
  });

  it.each(CONNECT_CLIENTS.map((c) => c.id))('%s: files readable by their owner alone, the key masked in the diff, how to remove them', async (id) => {
    const { written: files } = await run(id);
    for (const { path } of files) expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(output()).not.toContain(KEY);
    expect(output()).toContain('+++ ');
    expect(output()).toContain(`To undo:\n${files.map(({ path }) => `  rm '${path}'`).join('\n')}`);
  });
});

describe('a file that exists', () => {
  const before = JSON.stringify({ theme: 'dark', env: { EDITOR: 'vim', ANTHROPIC_MODEL: 'claude-old' } }, null, 2);

  it('is left unchanged when the user says no, after the diff', async () => {
    const path = await seed('claude', before);
    answers = [false];
    await expect(run('claude')).rejects.toBeInstanceOf(RefusedError);
    expect(await readFile(path, 'utf8')).toBe(before);
    expect(output()).toContain('-    "ANTHROPIC_MODEL": "claude-old"');
    expect(checked).toEqual([]);
  });

  it('is changed under --yes, keeping what is not Weft’s, with a backup and how to restore it', async () => {
    const path = await seed('claude', before);
    const { written: files } = await run('claude', true);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ theme: 'dark', env: { EDITOR: 'vim', ANTHROPIC_MODEL: 'qwen-coder-7b' } });
    const backup = files[0]?.backup ?? '';
    expect(backup).toBe(`${path}.weft-backup-2026-11-28T19-00-00-000Z`);
    expect(await readFile(backup, 'utf8')).toBe(before);
    expect(output()).toContain(`To undo:\n  mv '${backup}' '${path}'`);
  });

  it('keeps the other entries of a Continue config and replaces its own on a second run', async () => {
    await seed('continue', 'name: mine\nversion: 1.0.0\nschema: v1\n# my local model\nmodels:\n  - name: Ollama\n    provider: ollama\n    model: llama3\n');
    answers = [true, true];
    await run('continue');
    await run('continue');
    const text = await written('continue');
    expect(text).toContain('# my local model');
    expect((parseYaml(text) as { models: Array<{ name: string }> }).models.map((m) => m.name)).toEqual(['Ollama', 'Weft qwen-coder-7b']);
  });

  it("keeps a Codex config's other providers and profiles", async () => {
    await seed('codex', 'approval_policy = "on-request"\n\n[model_providers.ollama]\nname = "Ollama"\nbase_url = "http://localhost:11434/v1"\n');
    await run('codex', true);
    expect(parseToml(await written('codex'))).toMatchObject({ approval_policy: 'on-request', model_providers: { ollama: { name: 'Ollama' }, weft: { wire_api: 'responses' } } });
  });

  it('refuses a file it cannot read rather than replace it', async () => {
    const path = await seed('qwen', '{ not json');
    await expect(run('qwen', true)).rejects.toThrow(`${path} cannot be read`);
    expect(await readFile(path, 'utf8')).toBe('{ not json');
  });
});

it("docs/agent-clients.md's table of `weft connect` is the registry's", async () => {
  const page = await readFile(resolve(__dirname, '../../../../docs/agent-clients.md'), 'utf8');
  expect(page.includes(connectClientsTable()), `put this table in docs/agent-clients.md:\n${connectClientsTable()}`).toBe(true);
});
