import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, newUserKey } from './support/api';
import { composeWith, gatewayUrl, stackEnv } from './support/stack';

interface FleetWorker {
  workerId: string;
  host: string | null;
  status: string;
  models: Array<{ id: string; freeSequences: number; cachedSessions: number }>;
}

const REMOTE_MODEL = 'tiny-remote';

/** The central stack's NATS as another host reaches it: a host address and the published port. */
const natsHost = networkInterfaces().docker0?.find((a) => a.family === 'IPv4')?.address ?? '172.17.0.1';

/** A GPU host's compose project: docker-compose.worker.yml only, on a network of its own. */
function gpuHost(project: string, password: string, modelsConfig: string) {
  const env = {
    COMPOSE_PROJECT_NAME: project,
    COMPOSE_FILE: 'docker-compose.worker.yml',
    WEFT_NATS_URL: `nats://${natsHost}:${stackEnv.WEFT_NATS_PORT}`,
    WEFT_NATS_WORKER_PASSWORD: password,
    WEFT_MODELS_CONFIG: modelsConfig,
  };
  return {
    compose: (...args: string[]) => composeWith(env, ...args),
    containers: () => composeWith(env, 'ps', '-q').split('\n').filter(Boolean),
  };
}

const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
/** A container's host name, which its worker reports in the fleet view. */
const hostOf = (container: string) => docker('inspect', '--format', '{{.Config.Hostname}}', container).trim();

async function fleet(): Promise<FleetWorker[]> {
  const reply = await admin('GET', '/v1/admin/fleet');
  expect(reply.status).toBe(200);
  return (reply.body as { workers: FleetWorker[] }).workers;
}

const remoteWorkers = async () => (await fleet()).filter((w) => w.models.some((m) => m.id === REMOTE_MODEL));

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** A long opening of its own, so a conversation's prompt shares little with another's. */
const opening = (topic: string) => `${topic}: ${Array.from({ length: 60 }, (_, i) => `${topic}-${i}`).join(' ')}`;

/**
 * Two hosts on one machine: the central stack (its NATS published by docker-compose.fleet.yml)
 * and a GPU host's project running docker-compose.worker.yml on a network of its own, with two
 * inference workers serving a model the central stack does not have. They share only NATS's port.
 */
describe('inference workers on another host, joined over NATS with their own credentials', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-gpuhost-'));
  const modelsConfig = join(dir, 'models.json');
  const host = gpuHost(`${stackEnv.COMPOSE_PROJECT_NAME}-gpuhost`, stackEnv.WEFT_NATS_WORKER_PASSWORD, modelsConfig);
  const intruder = gpuHost(`${stackEnv.COMPOSE_PROJECT_NAME}-intruder`, 'not-the-workers-password', modelsConfig);
  let openai: OpenAI;

  beforeAll(async () => {
    const model = { id: REMOTE_MODEL, provider: 'llama', path: '/opt/weft/models/tiny.gguf', contextSize: 4096, threads: 1, gpuLayers: 0, sequences: 2 };
    writeFileSync(modelsConfig, JSON.stringify({ models: [model] }));
    host.compose('down', '-v', '--remove-orphans');
    host.compose('up', '-d', '--scale', 'inference=2');
    openai = new OpenAI({ baseURL: `${gatewayUrl}/openai/v1`, apiKey: await newUserKey('gpu-host-user'), maxRetries: 0 });
    await until('two remote workers in the fleet', remoteWorkers, (workers) => workers.length === 2);
  }, 180_000);

  afterAll(() => {
    for (const project of [host, intruder]) project.compose('down', '-v', '--remove-orphans');
  });

  it('lists the remote workers with their host; they cannot reach Redis or the gateway, only NATS', async () => {
    const hosts = host.containers().map(hostOf);
    const workers = await remoteWorkers();
    expect(workers.map((w) => w.host).sort()).toEqual([...hosts].sort());
    expect(workers.every((w) => w.status === 'ready' && w.models[0]?.freeSequences === 2)).toBe(true);
    // The same, as the team lead reads it.
    const cli = resolve(__dirname, '../apps/cli/dist/main.js');
    const env = { ...process.env, WEFT_URL: gatewayUrl, WEFT_ADMIN_TOKEN: stackEnv.WEFT_ADMIN_TOKEN, NO_COLOR: '1', XDG_CONFIG_HOME: dir };
    const table = execFileSync('node', [cli, 'admin', 'fleet'], { env, encoding: 'utf8' });
    for (const worker of workers) expect(table).toMatch(new RegExp(`${worker.workerId}\\s+${worker.host}\\s+ready\\s+${REMOTE_MODEL}\\s+2/2`));
    const probe = "const s = require('net').connect(Number(process.argv[2]), process.argv[1]); s.on('connect', () => { console.log('connected'); process.exit(0); }); s.on('error', (e) => { console.log(e.code); process.exit(0); });";
    const [container] = host.containers();
    for (const [name, port] of [['redis', '6379'], ['gateway', '8080']]) {
      expect(docker('exec', container!, 'node', '-e', probe, name!, port!).trim()).toMatch(/ENOTFOUND|EAI_AGAIN/);
    }
  });

  it('serves a conversation on a remote worker, its follow-up on the worker holding its cache, and fails over when that worker dies', async () => {
    const ask = (messages: OpenAI.ChatCompletionMessageParam[]) => openai.chat.completions.create({ model: REMOTE_MODEL, messages, max_tokens: 4 });
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: opening('remote') }];
    const first = await ask(messages);
    const firstPrompt = first.usage?.prompt_tokens ?? 0;
    const holders = await until('the worker holding the conversation', remoteWorkers, (ws) => ws.some((w) => w.models[0]!.cachedSessions > 0));
    const holder = holders.find((w) => w.models[0]!.cachedSessions > 0)!;

    messages.push({ role: 'assistant', content: first.choices[0]?.message.content ?? '' }, { role: 'user', content: 'Go on.' });
    const second = await ask(messages);
    // Only the worker that served the first request holds its tokens.
    expect(second.usage?.prompt_tokens_details?.cached_tokens).toBeGreaterThan(firstPrompt * 0.9);

    const container = host.containers().find((c) => hostOf(c) === holder.host);
    expect(container).toBeDefined();
    docker('kill', container!);
    messages.push({ role: 'assistant', content: second.choices[0]?.message.content ?? '' }, { role: 'user', content: 'And then?' });
    const third = await ask(messages);
    expect(third.choices[0]?.finish_reason).toBeDefined();
    // Served by the other worker, which never saw the conversation.
    expect(third.usage?.prompt_tokens_details?.cached_tokens ?? 0).toBeLessThan(firstPrompt / 4);
    await until('the killed worker gone from the fleet', remoteWorkers, (ws) => !ws.some((w) => w.workerId === holder.workerId), 30_000);
  });

  it('refuses a worker with the wrong password: NATS turns it away and it never appears in the fleet', async () => {
    intruder.compose('up', '-d');
    const [container] = intruder.containers();
    const name = hostOf(container!);
    const logs = await until('the intruder refused', async () => containerLogs(container!), (text) => /Authorization Violation/i.test(text), 60_000);
    expect(logs).toMatch(/Authorization Violation/i);
    expect((await fleet()).some((w) => w.host === name)).toBe(false);
  });
});

/** Both streams of a container's output (`docker logs` replays its stderr on its own stderr). */
function containerLogs(container: string): string {
  const { stdout, stderr } = spawnSync('docker', ['logs', container], { encoding: 'utf8' });
  return `${stdout}${stderr}`;
}
