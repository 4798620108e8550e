/**
 * `npm run bench:agents`: do agent clients' prompts come from cache on every step? Runs the real
 * Claude Code and Codex CLIs (pinned, installed into the test clients' cache) for a session of
 * BENCH_STEPS (5) requests each against a Weft gateway with an inference worker on a generated
 * GGUF, and prints, per request, the prompt tokens and the share the client was told came from
 * cache: first with Weft's reuse, then the same session with reuse switched off (each request
 * under a new user, whose requests never share a cache). A step is one CLI run that continues
 * the session (`claude -p --continue`, `codex exec resume --last`), so each request resends the
 * whole conversation as agents do. The model writes noise, so replies are capped at
 * BENCH_REPLY_TOKENS (32) by a proxy that also records the usage each client receives.
 * BENCH_CLIENTS (`claudeCode,codex`) picks the clients.
 * Not a test: figures only.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { makeTempDir, makeTestModel, removeDir, startWorker } from '../../apps/inference/src/testing/worker-harness';
import { startGatewayUnderTest, TEST_ADMIN_TOKEN } from '../../apps/gateway/src/test/gateway-under-test';
import { AGENT_CLIENTS, agentClient, runAgentClient } from '../../test/support/agent-clients';
import { table } from '../inference/stats';
import { type RecordedRequest, UsageProxy } from './usage-proxy';

const STEPS = Number(process.env.BENCH_STEPS ?? 5);
const REPLY_TOKENS = Number(process.env.BENCH_REPLY_TOKENS ?? 32);
const CONTEXT = Number(process.env.BENCH_CONTEXT ?? 65_536);
const CLIENTS = (process.env.BENCH_CLIENTS ?? 'claudeCode,codex').split(',') as Client[];
const MODEL = 'agent-bench';
const CLIENT_TIMEOUT_MS = 600_000;
const PROMPTS = ['Summarise this project.', 'What does hello.txt say?', 'Suggest a better name for it.', 'And a test for it?', 'Thanks, that is all.'];

@Module({})
class NoOtherWorkers {}

type Client = 'claudeCode' | 'codex';

async function main(): Promise<void> {
  const dir = await makeTempDir('weft-bench-agents-');
  await makeTestModel(dir, 'agent-bench.gguf', ['--context', String(CONTEXT)]);
  const gateway = await startGatewayUnderTest(NoOtherWorkers);
  const registry = {
    models: [{ id: MODEL, provider: 'llama', path: 'agent-bench.gguf', contextSize: CONTEXT, threads: 2, gpuLayers: 0, sequences: 2 }],
  };
  const worker = await startWorker(gateway.natsUrl, dir, registry, { KV_STATE_DIR: join(dir, 'kv-state'), HEARTBEAT_INTERVAL_MS: '2000' });
  const newKey = async (name: string) => {
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const user = (await (await fetch(`${gateway.base}/v1/admin/users`, { method: 'POST', headers: admin, body: JSON.stringify({ name }) })).json()) as { id: string };
    return ((await (await fetch(`${gateway.base}/v1/admin/users/${user.id}/keys`, { method: 'POST', headers: admin })).json()) as { key: string }).key;
  };
  try {
    let users = 0;
    for (const client of CLIENTS) {
      const { version, pkg } = AGENT_CLIENTS[client];
      const results: Record<string, RecordedRequest[]> = {};
      for (const reuse of [true, false]) {
        const key = await newKey(`bench-${client}-${reuse ? 'reuse' : 'no-reuse'}`);
        const proxy = await UsageProxy.start({
          target: gateway.base,
          replyTokens: REPLY_TOKENS,
          ...(reuse ? {} : { rotateKeys: () => newKey(`bench-rotated-${++users}`) }),
        });
        try {
          await session(client, proxy, key);
        } finally {
          await proxy.close();
        }
        results[reuse ? 'reuse' : 'off'] = proxy.recorded;
      }
      report(`${pkg} ${version}`, results.reuse ?? [], results.off ?? []);
    }
  } finally {
    await worker.close().catch(() => undefined);
    await gateway.stop();
    await removeDir(dir);
  }
}

/** One session of STEPS CLI runs in a fresh project folder and client home. */
async function session(client: Client, proxy: UsageProxy, key: string): Promise<void> {
  const cwd = await mkdtemp(join(tmpdir(), 'weft-bench-project-'));
  const home = await mkdtemp(join(tmpdir(), 'weft-bench-home-'));
  await writeFile(join(cwd, 'hello.txt'), 'hello from the benchmark\n');
  const bin = await agentClient(client);
  try {
    for (let step = 0; step < STEPS; step++) {
      proxy.label = `step ${step + 1}`;
      const before = proxy.recorded.length;
      const prompt = PROMPTS[step % PROMPTS.length] ?? 'Go on.';
      const env = { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', TERM: 'dumb' };
      if (client === 'claudeCode') {
        const args = ['-p', ...(step > 0 ? ['--continue'] : []), prompt, '--output-format', 'json'];
        await tolerateExit(runAgentClient(bin, args, {
          cwd,
          timeoutMs: CLIENT_TIMEOUT_MS,
          env: {
            ...env,
            ANTHROPIC_BASE_URL: `${proxy.url}/anthropic`,
            ANTHROPIC_API_KEY: key,
            ANTHROPIC_MODEL: MODEL,
            ANTHROPIC_DEFAULT_HAIKU_MODEL: MODEL,
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            DISABLE_AUTOUPDATER: '1',
            // Its own cap: capped only at the proxy, it asks the model to go on, up to 3 more requests a step.
            CLAUDE_CODE_MAX_OUTPUT_TOKENS: String(REPLY_TOKENS),
          },
        }));
      } else {
        if (step === 0) await writeFile(join(home, 'config.toml'), codexConfig(proxy.url));
        const args = ['exec', ...(step > 0 ? ['resume', '--last'] : []), '--skip-git-repo-check', prompt];
        await tolerateExit(runAgentClient(bin, args, { cwd, timeoutMs: CLIENT_TIMEOUT_MS, env: { ...env, CODEX_HOME: home, WEFT_API_KEY: key } }));
      }
      // As it goes, so that a long run interrupted still shows what it measured.
      for (const r of proxy.recorded.slice(before)) console.log(`  ${client} ${r.label}: prompt ${r.promptTokens}, cached ${r.cachedTokens}, ${r.ms.toFixed(0)} ms`);
    }
  } finally {
    await rm(cwd, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
}

/**
 * A capped reply is an error to Codex (`response.incomplete`, exit 1) though its requests were
 * served: the figures come from the proxy, so only a client that did not run at all stops the bench.
 */
async function tolerateExit(running: Promise<unknown>): Promise<void> {
  try {
    await running;
  } catch (error) {
    const { code, killed } = error as { code?: unknown; killed?: boolean };
    if (typeof code !== 'number' || killed) throw error;
    console.log(`  (the client exited ${code})`);
  }
}

function codexConfig(base: string): string {
  return [
    `model = "${MODEL}"`,
    'model_provider = "weft"',
    '',
    '[model_providers.weft]',
    'name = "Weft"',
    `base_url = "${base}/openai/v1"`,
    'env_key = "WEFT_API_KEY"',
    'wire_api = "responses"',
  ].join('\n');
}

function report(client: string, reuse: RecordedRequest[], off: RecordedRequest[]): void {
  const pct = (r: RecordedRequest | undefined) => (r && r.promptTokens > 0 ? (100 * r.cachedTokens) / r.promptTokens : Number.NaN);
  const rows = Array.from({ length: Math.max(reuse.length, off.length) }, (_, i) => {
    const [on, no] = [reuse[i], off[i]];
    return [i + 1, on?.label ?? no?.label ?? '', on?.promptTokens ?? '-', on?.cachedTokens ?? '-', pct(on), on?.ms ?? Number.NaN, no?.cachedTokens ?? '-', pct(no), no?.ms ?? Number.NaN];
  });
  console.log(`\n${client}: ${reuse.length} requests with reuse, ${off.length} without (replies capped at ${REPLY_TOKENS} tokens)`);
  console.log(table(['request', 'step', 'prompt', 'cached', 'cached %', 'ms', 'cached (off)', '% (off)', 'ms (off)'], rows));
  const later = reuse.slice(1).map(pct).filter(Number.isFinite);
  const failed = [...reuse, ...off].filter((r) => r.status !== 200).length;
  console.log(
    `from the second request on: cached share min ${Math.min(...later).toFixed(1)} %, ` +
      `request time ${sum(reuse.slice(1))} ms with reuse, ${sum(off.slice(1))} ms without; failed requests: ${failed}`,
  );
}

function sum(requests: RecordedRequest[]): string {
  return requests.reduce((total, r) => total + r.ms, 0).toFixed(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
