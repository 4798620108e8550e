import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_CLIENTS, agentClient } from '../test/support/agent-clients';
import { newUserKey } from './support/api';
import { gatewayUrl } from './support/stack';

const run = promisify(execFile);

/**
 * Qwen Code (`@qwen-code/qwen-code` from the npm registry, pinned, installed by the test tier
 * into the agent clients' cache), a third-party agent CLI, pointed at Weft the way its docs say: OPENAI_BASE_URL/OPENAI_API_KEY/OPENAI_MODEL for the OpenAI API,
 * ANTHROPIC_BASE_URL/ANTHROPIC_API_KEY/ANTHROPIC_MODEL for the Anthropic one. Headless (`-p`
 * style positional prompt), `--yolo` so it runs its own shell tool on this machine, `--bare` so it
 * sends only the task's requests (no memory-extraction side calls). The scripted model
 * `scripted/add-greeting` calls the CLI's `run_shell_command` tool, then answers once it has
 * the tool's result: the file proves the call reached the CLI, the answer proves the result
 * came back to the model.
 */
describe(`a third-party agent CLI (Qwen Code ${AGENT_CLIENTS.qwenCode.version}) against the compatible APIs`, () => {
  let key: string;
  let home: string;
  let qwen: string;

  beforeAll(async () => {
    key = await newUserKey('qwen-code-user');
    home = await mkdtemp(join(tmpdir(), 'weft-qwen-home-'));
    qwen = await agentClient('qwenCode');
  }, 900_000);
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  const apis = {
    openai: (apiKey: string) => ({ OPENAI_BASE_URL: `${gatewayUrl}/openai/v1`, OPENAI_API_KEY: apiKey, OPENAI_MODEL: 'scripted/add-greeting' }),
    anthropic: (apiKey: string) => ({ ANTHROPIC_BASE_URL: `${gatewayUrl}/anthropic`, ANTHROPIC_API_KEY: apiKey, ANTHROPIC_MODEL: 'scripted/add-greeting' }),
  };

  it.each(Object.keys(apis) as (keyof typeof apis)[])('completes a one-step task through the %s API', async (api) => {
    const project = await mkdtemp(join(tmpdir(), 'weft-qwen-project-'));
    try {
      const { stdout } = await run(qwen, ['--bare', '--yolo', 'Add a greeting.txt that says Hello, world'], {
        cwd: project,
        timeout: 120_000,
        env: { PATH: process.env.PATH, HOME: home, QWEN_CODE_SUPPRESS_YOLO_WARNING: '1', NO_COLOR: '1', ...apis[api](key) },
      });
      expect(await readFile(join(project, 'greeting.txt'), 'utf8')).toBe('Hello, world\n');
      expect(stdout).toContain('Added greeting.txt, which says Hello, world.');
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });

  it('reports a wrong key as the API refused it', async () => {
    const project = await mkdtemp(join(tmpdir(), 'weft-qwen-project-'));
    try {
      const failed = await run(qwen, ['--bare', '--yolo', 'Add a greeting.txt'], {
        cwd: project,
        timeout: 120_000,
        env: { PATH: process.env.PATH, HOME: home, QWEN_CODE_SUPPRESS_YOLO_WARNING: '1', NO_COLOR: '1', ...apis.openai('wk_not_a_key') },
      }).then(
        () => undefined,
        (error: { code?: number; stdout?: string; stderr?: string }) => error,
      );
      expect(failed?.code).not.toBe(0);
      expect(`${failed?.stdout ?? ''}${failed?.stderr ?? ''}`).toMatch(/401/);
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
