import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import { loadConfig, toolsConfigSchema } from '@weft/config';
import type { StoredSessionEvent } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from '../apps/gateway/src/test/gateway-under-test';
import { ScriptedModelModule, script } from '../apps/gateway/src/test/scripted-workers';
import { readEvents } from '../apps/gateway/src/test/sse-client';
import { type SandboxHarness, startSandboxHarness } from '../apps/sandbox/src/testing/sandbox-harness';
import { startToolsWorker } from '../apps/tools/src/bootstrap';
import { TOOLCHAIN_PROJECTS, type ToolchainProject } from './support/toolchain-projects';

/**
 * A Rust crate, a Go module and a Maven project, each with one test and no dependencies to fetch,
 * uploaded as a team would and opened in a session created the default way (no image asked
 * for). The gateway (in-process, scripted model) sends the model's `run_command` to a real
 * sandbox worker, which picks the toolchain's image from the project's build file and runs the
 * tests in the session's real container on the real Docker engine, with no network: Maven
 * works from Debian's packaged plugins and JUnit alone. The session shows the image it uses.
 */
let gateway: GatewayUnderTest;
let tools: INestMicroservice;
let sandbox: SandboxHarness;
let dir: string;

const images = {
  go: process.env.WEFT_SANDBOX_GO_IMAGE ?? 'weft/sandbox-go:latest',
  rust: process.env.WEFT_SANDBOX_RUST_IMAGE ?? 'weft/sandbox-rust:latest',
  java: process.env.WEFT_SANDBOX_JAVA_IMAGE ?? 'weft/sandbox-java:latest',
};
/** A cold JVM, javac and two Maven plugins on a loaded 2-core machine take minutes, not seconds (a long run's most). */
const COMMAND_TIMEOUT_MS = 600_000;

async function api(method: string, path: string, token: string, body?: unknown, contentType = 'application/json') {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = contentType;
  const payload = body === undefined ? undefined : body instanceof Uint8Array ? body : JSON.stringify(body);
  const response = await fetch(`${gateway.base}${path}`, { method, headers, body: payload });
  return { status: response.status, json: (await response.json().catch(() => ({}))) as Record<string, unknown> };
}

/** A user who uploads the project as a workspace (a tar.gz, as the CLI does) and opens a session on it. */
async function sessionOn(project: ToolchainProject) {
  const userId = String((await api('POST', '/v1/admin/users', TEST_ADMIN_TOKEN, { name: `toolchain-${project.imageId}` })).json.id);
  const key = String((await api('POST', `/v1/admin/users/${userId}/keys`, TEST_ADMIN_TOKEN)).json.key);
  const folder = await mkdtemp(join(tmpdir(), `weft-toolchain-${project.imageId}-`));
  for (const [path, content] of Object.entries(project.files)) {
    await mkdir(join(folder, dirname(path)), { recursive: true });
    await writeFile(join(folder, path), content);
  }
  const archive = new Uint8Array(execFileSync('tar', ['-czf', '-', '-C', folder, '.']));
  await rm(folder, { recursive: true, force: true });
  const upload = await api('POST', '/v1/workspaces', key, archive, 'application/gzip');
  expect(upload.status).toBe(201);
  // The tools worker runs as the sandbox user (10001) in compose; here it runs as this process.
  execFileSync('chown', ['-R', '10001:10001', join(dir, String(upload.json.id))]);
  const session = await api('POST', '/v1/sessions', key, { workspaceId: String(upload.json.id), model: 'tiny' });
  expect(session.status).toBe(201);
  return { key, sessionId: String(session.json.id) };
}

const ended = (e: StoredSessionEvent) => e.type === 'turn.completed' || e.type === 'turn.failed' || e.type === 'turn.cancelled';

beforeAll(async () => {
  gateway = await startGatewayUnderTest(ScriptedModelModule, {
    PERMISSIONS_SERVER_RULES: JSON.stringify({ allow: TOOLCHAIN_PROJECTS.map((p) => p.rule) }),
  });
  dir = await mkdtemp(join(tmpdir(), 'weft-toolchains-'));
  await chmod(dir, 0o755);
  tools = await startToolsWorker(
    loadConfig(toolsConfigSchema, { NATS_URL: gateway.natsUrl, WORKSPACES_DIR: dir, LOG_LEVEL: 'silent' }),
    createLogger('tools', 'silent'),
  );
  // The harness's limits are sized for attack suites; a compiler and a JVM need the defaults'.
  // Builds and test runs are long runs: the gateway queues them in Redis for this worker.
  sandbox = await startSandboxHarness(gateway.natsUrl, {
    REDIS_URL: gateway.redisUrl,
    REDIS_KEY_PREFIX: gateway.redisKeyPrefix,
    WORKSPACES_DIR: dir,
    SANDBOX_POOL_SIZE: '0',
    SANDBOX_IMAGES: `dev=${process.env.WEFT_SANDBOX_DEV_IMAGE ?? 'weft/sandbox-dev:latest'},go=${images.go},rust=${images.rust},java=${images.java}`,
    SANDBOX_MEMORY_MB: '1024',
    SANDBOX_PIDS_LIMIT: '512',
    SANDBOX_TMPFS_MB: '256',
    SANDBOX_FILE_MAX_MB: '256',
    SANDBOX_OUTPUT_MAX_BYTES: String(64 * 1024),
    SANDBOX_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
  });
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  await tools?.close();
  await gateway?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("a project's toolchain in a session created the default way", () => {
  it.each(TOOLCHAIN_PROJECTS)('$name: its build file picks the $imageId image, whose toolchain passes its test offline', async (project) => {
    const f = await sessionOn(project);
    const shown = await api('GET', `/v1/sessions/${f.sessionId}`, f.key);
    expect(shown.json.sandboxImageInUse).toEqual({ id: project.imageId, image: images[project.imageId], source: 'project', file: project.buildFile });

    script(f.sessionId, [{ calls: [{ name: 'run_command', arguments: { command: project.command } }] }, { text: 'tested' }]);
    const posted = await api('POST', `/v1/sessions/${f.sessionId}/messages`, f.key, { content: 'Run the tests.' });
    expect(posted.status).toBe(202);
    const events = await readEvents(
      `${gateway.base}/v1/sessions/${f.sessionId}/events?after=${String(shown.json.lastEventId)}`,
      { authorization: `Bearer ${f.key}` },
      ended,
    );
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed' });
    const result = events.find((e) => e.type === 'tool.completed');
    expect(result, JSON.stringify(events)).toMatchObject({ name: 'run_command', isError: false });
    const output = result?.type === 'tool.completed' ? result.output : '';
    expect(output).toContain(`image: ${project.imageId}`);
    expect(output).toMatch(project.passed);
  }, COMMAND_TIMEOUT_MS + 60_000);
});
