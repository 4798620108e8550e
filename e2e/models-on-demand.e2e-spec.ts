import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createLogger } from '@weft/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlamaRuntime } from '../apps/inference/src/llama/llama-runtime';
import { estimateModelBytes } from '../apps/inference/src/llama/memory-estimate';
import { llamaModelSchema } from '../apps/inference/src/registry/models-config.schema';
import { admin, call, newUserKey } from './support/api';
import { startTurn } from './support/turns';
import { composeWith, gatewayUrl, stackEnv } from './support/stack';

interface FleetModel {
  id: string;
  state: 'loaded' | 'loading' | 'unloaded';
  memoryBytes: number | null;
  pinned: boolean;
}
interface FleetWorker {
  workerId: string;
  memory: { budgetBytes: number; usedBytes: number } | null;
  models: FleetModel[];
}

const root = resolve(__dirname, '..');
/** Three GGUFs of different sizes, and a copy of one cut short. */
const MODELS = {
  'od-small': { file: 'od-small.gguf', flags: [] as string[] },
  'od-medium': { file: 'od-medium.gguf', flags: ['--layers', '4', '--embedding', '128', '--feed-forward', '256'] },
  'od-other': { file: 'od-other.gguf', flags: ['--layers', '4', '--embedding', '128', '--feed-forward', '256', '--seed', '7'] },
};
type Id = keyof typeof MODELS;
// Room for an agent turn's system prompt and tools (the last test runs one).
const base = { provider: 'llama', contextSize: 8192, sequences: 1, threads: 1, gpuLayers: 0 } as const;

/** The central stack's NATS as another host reaches it (docker-compose.fleet.yml publishes it). */
const natsHost = networkInterfaces().docker0?.find((a) => a.family === 'IPv4')?.address ?? '172.17.0.1';

async function fleet(): Promise<FleetWorker[]> {
  const reply = await admin('GET', '/v1/admin/fleet');
  expect(reply.status).toBe(200);
  return (reply.body as { workers: FleetWorker[] }).workers;
}

/** The worker serving this file's models (no other worker announces them). */
async function onDemandWorker(): Promise<FleetWorker | undefined> {
  return (await fleet()).find((w) => w.models.some((m) => m.id === 'od-small'));
}

async function until<T>(what: string, read: () => Promise<T | undefined>, done: (value: T | undefined) => boolean, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined && done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

const stateOf = (worker: FleetWorker | undefined, id: string) => worker?.models.find((m) => m.id === id)?.state;
const loaded = (worker: FleetWorker | undefined) => (worker?.models ?? []).filter((m) => m.state === 'loaded').map((m) => m.id).sort();

/**
 * A worker declaring three models whose budget (MODELS_MAX_LOADED_BYTES) fits two of them, joined
 * to the stack like a GPU host's (docker-compose.worker.yml), driven through the gateway's
 * compatible API and its admin routes.
 */
describe('models on demand: three models on a worker whose memory budget fits two', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-ondemand-'));
  const bytes = {} as Record<Id, number>;
  let budget = 0;
  let key: string;
  const env = () => ({
    COMPOSE_PROJECT_NAME: `${stackEnv.COMPOSE_PROJECT_NAME}-ondemand`,
    COMPOSE_FILE: 'docker-compose.worker.yml',
    WEFT_INFERENCE_IMAGE: process.env.WEFT_APP_IMAGE ?? 'weft/app:latest',
    WEFT_NATS_URL: `nats://${natsHost}:${stackEnv.WEFT_NATS_PORT}`,
    WEFT_NATS_WORKER_PASSWORD: stackEnv.WEFT_NATS_WORKER_PASSWORD,
    WEFT_MODELS_CONFIG: join(dir, 'models.json'),
    WEFT_MODELS_SOURCE: dir,
    WEFT_MODELS_MAX_LOADED_BYTES: String(budget),
  });
  const worker = (...args: string[]) => composeWith(env(), ...args);
  const ask = (model: string) => call('POST', '/openai/v1/chat/completions', key, { model, messages: [{ role: 'user', content: `Hello, ${model}.` }], max_tokens: 4 });

  beforeAll(async () => {
    chmodSync(dir, 0o755);
    const backend = await new LlamaRuntime(createLogger('e2e-estimate', 'silent')).get();
    for (const [id, { file, flags }] of Object.entries(MODELS) as [Id, (typeof MODELS)[Id]][]) {
      execFileSync(process.execPath, [join(root, 'scripts/gguf/make-test-model.mjs'), join(dir, file), ...flags]);
      chmodSync(join(dir, file), 0o644);
      // The worker's own estimator on the same CPU: the budget holds whatever it counts.
      bytes[id] = await estimateModelBytes(backend, { ...llamaModelSchema.parse({ ...base, id, path: join(dir, file) }), path: join(dir, file) });
    }
    writeFileSync(join(dir, 'od-truncated.gguf'), readFileSync(join(dir, MODELS['od-medium'].file)).subarray(0, 100_000));
    chmodSync(join(dir, 'od-truncated.gguf'), 0o644);
    const models = [...(Object.keys(MODELS) as Id[]), 'od-truncated'].map((id) => ({ ...base, id, path: `/var/lib/weft/models/${id}.gguf` }));
    writeFileSync(join(dir, 'models.json'), JSON.stringify({ models }));
    chmodSync(join(dir, 'models.json'), 0o644);
    // medium and other fit together; small beside both does not.
    budget = bytes['od-medium'] + bytes['od-other'] + Math.floor(bytes['od-small'] / 2);
    worker('down', '-v', '--remove-orphans');
    worker('up', '-d');
    key = await newUserKey('on-demand-user');
    await until('the on-demand worker in the fleet', onDemandWorker, (w) => w !== undefined);
  }, 180_000);

  afterAll(() => {
    worker('down', '-v', '--remove-orphans');
    rmSync(dir, { recursive: true, force: true });
  });

  it('announces its models unloaded with the budget, and loads one on its first request', async () => {
    const before = (await onDemandWorker())!;
    expect(loaded(before)).toEqual([]);
    expect(before.memory).toEqual({ budgetBytes: budget, usedBytes: 0 });
    const reply = await ask('od-small');
    expect(reply.status).toBe(200);
    const after = await until('od-small loaded', onDemandWorker, (w) => stateOf(w, 'od-small') === 'loaded');
    expect(after.models.find((m) => m.id === 'od-small')).toMatchObject({ memoryBytes: bytes['od-small'], pinned: false });
    expect(after.memory).toEqual({ budgetBytes: budget, usedBytes: bytes['od-small'] });
  });

  it('unloads the least recently used idle model when a third will not fit, and weft admin fleet shows it', async () => {
    expect((await ask('od-medium')).status).toBe(200);
    expect((await ask('od-other')).status).toBe(200);
    const after = await until('od-other loaded', onDemandWorker, (w) => stateOf(w, 'od-other') === 'loaded');
    expect(loaded(after)).toEqual(['od-medium', 'od-other']);
    expect(after.memory?.usedBytes).toBe(bytes['od-medium'] + bytes['od-other']);

    const cli = resolve(root, 'apps/cli/dist/main.js');
    const cliEnv = { ...process.env, WEFT_URL: gatewayUrl, WEFT_ADMIN_TOKEN: stackEnv.WEFT_ADMIN_TOKEN, NO_COLOR: '1', XDG_CONFIG_HOME: dir };
    const table = execFileSync('node', [cli, 'admin', 'fleet'], { env: cliEnv, encoding: 'utf8' });
    expect(table).toMatch(/od-small\s+1\/1\s+0\s+\d+\s+unloaded\s+[\d.]+ (KiB|MiB)/);
    expect(table).toMatch(/od-other\s+1\/1\s+0\s+\d+\s+loaded\s+[\d.]+ (KiB|MiB)/);
    expect(table).toMatch(/MODEL MEMORY/);
  });

  it('serves requests that arrive while their model loads', async () => {
    const replies = await Promise.all([ask('od-small'), ask('od-small'), ask('od-other')]);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(loaded(await until('od-small back', onDemandWorker, (w) => stateOf(w, 'od-small') === 'loaded'))).toEqual(['od-other', 'od-small']);
  });

  it('answers a truncated GGUF with an error that names it, and keeps the loaded models serving', async () => {
    const reply = await ask('od-truncated');
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(reply.body)).toContain('the GGUF is truncated');
    const now = (await onDemandWorker())!;
    expect(loaded(now)).toEqual(['od-other', 'od-small']);
    expect((await ask('od-other')).status).toBe(200);
  });

  it("tells a session's turn that its model is loading before the reply streams", async () => {
    expect(stateOf(await onDemandWorker(), 'od-medium')).toBe('unloaded');
    const workspace = await call<{ id: string }>('POST', '/v1/workspaces', key, {});
    const session = await call<{ id: string }>('POST', '/v1/sessions', key, { workspaceId: workspace.body.id, model: 'od-medium' });
    expect(session.status).toBe(201);
    const turn = await startTurn(key, session.body.id, 'Hello.');
    try {
      // The generated model writes until its reply cap: the first text is all this test needs.
      const first = await turn.waitFor((e) => e.type === 'message.delta' || e.type === 'turn.failed' || e.type === 'turn.completed', 240_000);
      expect(first.type === 'turn.failed' ? `${first.code}: ${first.message}` : 'streaming').toBe('streaming');
      const types = turn.events.map((e) => e.type);
      expect(turn.events.find((e) => e.type === 'model.loading')).toMatchObject({ model: 'od-medium', turnId: turn.turnId });
      expect(types.indexOf('model.loading')).toBeGreaterThanOrEqual(0);
      expect(types.indexOf('model.loading')).toBeLessThan(types.indexOf(first.type));
    } finally {
      await call('POST', `/v1/sessions/${session.body.id}/turns/${turn.turnId}/cancel`, key);
      await turn.ended.catch(() => undefined);
      turn.stop();
    }
  }, 300_000);
});
