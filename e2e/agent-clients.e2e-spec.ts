import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENT_CLIENTS, AGENT_CLIENTS_CACHE, agentClient, runAgentClient } from '../test/support/agent-clients';
import { call, newUserKey } from './support/api';
import { gatewayUrl } from './support/stack';

const run = (bin: string, args: string[], options: { cwd: string; timeout: number; env: NodeJS.ProcessEnv }) =>
  runAgentClient(bin, args, { cwd: options.cwd, timeoutMs: options.timeout, env: options.env });

/**
 * Where the scripted models' tools write: the scripts (e2e/scripts/<client>.json) name absolute
 * paths, as Claude Code's and opencode's tools require them.
 */
const WORK_ROOT = '/tmp/weft-agent-clients-e2e';
const CLIENT_TIMEOUT_MS = 180_000;

async function freshDir(name: string): Promise<string> {
  const dir = join(WORK_ROOT, name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  return dir;
}

/** Only what a developer's shell would set for the client: nothing of this process's own environment leaks in. */
function clientEnv(home: string, settings: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', TERM: 'dumb', ...settings };
}

/** The user's usage rows for one model: proof that the client's requests went through Weft. */
async function requestsFor(key: string, model: string): Promise<number> {
  const usage = await call<{ rows: { model: string; generations: number }[] }>('GET', `/v1/me/usage?model=${encodeURIComponent(model)}`, key);
  return usage.body.rows.reduce((sum, row) => sum + row.generations, 0);
}

/**
 * The compatibility matrix (README, "Agents and editors"): each client at its pinned release,
 * configured only by its documented settings, runs a whole loop against a scripted model that
 * calls the client's own tools. Each test checks the file the client's tool wrote and the final
 * answer the client printed.
 */
describe('agent clients from the npm registry against the compose stack', () => {
  let key: string;

  beforeAll(async () => {
    key = await newUserKey(`agent-clients-${Date.now()}`);
    // Installed once into the cache (hundreds of MB each), then reused by later runs.
    await Promise.all([agentClient('claudeCode'), agentClient('codex'), agentClient('opencode')]);
  }, 900_000);

  it(`Claude Code ${AGENT_CLIENTS.claudeCode.version} (-p, Anthropic Messages): loads a deferred tool, writes a file, answers`, async () => {
    const dir = await freshDir('claude-code');
    const home = await mkdtemp(join(tmpdir(), 'weft-claude-home-'));
    const { stdout } = await run(
      await agentClient('claudeCode'),
      ['-p', 'Write hello.txt with a greeting.', '--output-format', 'json', '--permission-mode', 'acceptEdits'],
      {
        cwd: dir,
        timeout: CLIENT_TIMEOUT_MS,
        env: clientEnv(home, {
          ANTHROPIC_BASE_URL: `${gatewayUrl}/anthropic`,
          ANTHROPIC_API_KEY: key,
          ANTHROPIC_MODEL: 'scripted/claude-code',
          ANTHROPIC_DEFAULT_HAIKU_MODEL: 'scripted/claude-code',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
        }),
      },
    );
    const result = JSON.parse(stdout) as { is_error: boolean; result: string; num_turns: number };
    expect(result).toMatchObject({ is_error: false, result: 'Wrote hello.txt through Weft.' });
    expect(await readFile(join(dir, 'hello.txt'), 'utf8')).toBe('written by Claude Code through Weft\n');
    expect(await requestsFor(key, 'scripted/claude-code')).toBeGreaterThanOrEqual(3);
    await rm(home, { recursive: true, force: true });
  });

  it(`Codex CLI ${AGENT_CLIENTS.codex.version} (exec, Responses API): runs its shell tool, answers`, async () => {
    const dir = await freshDir('codex');
    const home = await mkdtemp(join(tmpdir(), 'weft-codex-home-'));
    await writeFile(
      join(home, 'config.toml'),
      [
        'model = "scripted/codex"',
        'model_provider = "weft"',
        '',
        '[model_providers.weft]',
        'name = "Weft"',
        `base_url = "${gatewayUrl}/openai/v1"`,
        'env_key = "WEFT_API_KEY"',
        'wire_api = "responses"',
      ].join('\n'),
    );
    const lastMessage = join(home, 'last-message.txt');
    // Codex's own sandbox (bubblewrap) needs user namespaces a CI container may not give: the test
    // is about the API, so it runs unsandboxed in a throwaway folder.
    await run(
      await agentClient('codex'),
      ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--output-last-message', lastMessage, 'Write hello.txt with a greeting.'],
      { cwd: dir, timeout: CLIENT_TIMEOUT_MS, env: clientEnv(home, { CODEX_HOME: home, WEFT_API_KEY: key }) },
    );
    expect((await readFile(lastMessage, 'utf8')).trim()).toBe('Wrote hello.txt through Weft.');
    expect(await readFile(join(dir, 'hello.txt'), 'utf8')).toBe('written by Codex through Weft\n');
    expect(await requestsFor(key, 'scripted/codex')).toBeGreaterThanOrEqual(2);
    await rm(home, { recursive: true, force: true });
  });

  it(`opencode ${AGENT_CLIENTS.opencode.version} (run, Chat Completions): names the session, writes a file, answers`, async () => {
    const dir = await freshDir('opencode');
    const config = {
      $schema: 'https://opencode.ai/config.json',
      provider: {
        weft: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Weft',
          options: { baseURL: `${gatewayUrl}/openai/v1`, apiKey: '{env:WEFT_API_KEY}' },
          models: { 'scripted/opencode': { name: 'scripted/opencode' } },
        },
      },
      model: 'weft/scripted/opencode',
    };
    await writeFile(join(dir, 'opencode.json'), JSON.stringify(config));
    // opencode installs the provider package from npm on first use: its cache sits beside the clients'.
    const home = join(AGENT_CLIENTS_CACHE, 'opencode-home');
    await mkdir(home, { recursive: true });
    const { stdout } = await run(await agentClient('opencode'), ['run', 'Write hello.txt with a greeting.'], {
      cwd: dir,
      timeout: CLIENT_TIMEOUT_MS,
      env: clientEnv(home, { WEFT_API_KEY: key, OPENCODE_DISABLE_AUTOUPDATE: '1' }),
    });
    expect(stdout).toContain('Wrote hello.txt through Weft.');
    expect(await readFile(join(dir, 'hello.txt'), 'utf8')).toBe('written by opencode through Weft\n');
    expect(await requestsFor(key, 'scripted/opencode')).toBeGreaterThanOrEqual(3);
  });

  describe('the official SDKs, the test acting as the agent that runs the tool', () => {
    const writeFileTool = {
      name: 'write_file',
      description: 'Writes a file',
      parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
    };
    const runTool = async (dir: string, args: string | Record<string, unknown>) => {
      const { path, content } = (typeof args === 'string' ? JSON.parse(args) : args) as { path: string; content: string };
      await writeFile(join(dir, path), content);
      return `wrote ${path}`;
    };

    it('openai responses.create: a function call answered through previous_response_id', async () => {
      const dir = await freshDir('openai-responses');
      const openai = new OpenAI({ baseURL: `${gatewayUrl}/openai/v1`, apiKey: key, maxRetries: 0 });
      const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', strict: true, ...writeFileTool }];
      const first = await openai.responses.create({ model: 'scripted/sdk-write', input: 'Write hello.txt.', tools });
      const calls = first.output.filter((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call');
      expect(calls.map((c) => c.name)).toEqual(['write_file']);
      const outputs = await Promise.all(calls.map(async (c) => ({ type: 'function_call_output' as const, call_id: c.call_id, output: await runTool(dir, c.arguments) })));
      const second = await openai.responses.create({ model: 'scripted/sdk-write', previous_response_id: first.id, input: outputs, tools });
      expect(second.output_text).toBe('Wrote hello.txt through Weft.');
      expect(await readFile(join(dir, 'hello.txt'), 'utf8')).toBe('written by an SDK through Weft\n');
    });

    it('openai chat.completions: the same loop, streamed', async () => {
      const dir = await freshDir('openai-chat');
      const openai = new OpenAI({ baseURL: `${gatewayUrl}/openai/v1`, apiKey: key, maxRetries: 0 });
      const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: writeFileTool }];
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Write hello.txt.' }];
      const first = await openai.chat.completions.stream({ model: 'scripted/sdk-write', messages, tools }).finalMessage();
      messages.push(first);
      for (const call of first.tool_calls ?? []) {
        if (call.type === 'function') messages.push({ role: 'tool', tool_call_id: call.id, content: await runTool(dir, call.function.arguments) });
      }
      const second = await openai.chat.completions.create({ model: 'scripted/sdk-write', messages, tools });
      expect(second.choices[0]?.message.content).toBe('Wrote hello.txt through Weft.');
      expect(await readFile(join(dir, 'hello.txt'), 'utf8')).toBe('written by an SDK through Weft\n');
    });

    it('@anthropic-ai/sdk messages: the same loop, streamed', async () => {
      const dir = await freshDir('anthropic-sdk');
      const anthropic = new Anthropic({ baseURL: `${gatewayUrl}/anthropic`, apiKey: key, maxRetries: 0 });
      const tools: Anthropic.Tool[] = [{ name: writeFileTool.name, description: writeFileTool.description, input_schema: writeFileTool.parameters as Anthropic.Tool.InputSchema }];
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Write hello.txt.' }];
      const first = await anthropic.messages.stream({ model: 'scripted/sdk-write', max_tokens: 256, messages, tools }).finalMessage();
      messages.push({ role: 'assistant', content: first.content });
      const results: Anthropic.ToolResultBlockParam[] = [];
      for (const block of first.content) {
        if (block.type === 'tool_use') results.push({ type: 'tool_result', tool_use_id: block.id, content: await runTool(dir, block.input as Record<string, unknown>) });
      }
      messages.push({ role: 'user', content: results });
      const second = await anthropic.messages.create({ model: 'scripted/sdk-write', max_tokens: 256, messages, tools });
      expect(second.content).toEqual([{ type: 'text', text: 'Wrote hello.txt through Weft.' }]);
      expect(await readFile(join(dir, 'hello.txt'), 'utf8')).toBe('written by an SDK through Weft\n');
    });
  });
});
