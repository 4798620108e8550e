import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import { loadConfig, toolsConfigSchema } from '@weft/config';
import { createLogger } from '@weft/logging';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type GatewayUnderTest, ScriptedModelModule, sessionApi, startGatewayUnderTest, startToolsWorker } from '../../../../test/support/app-harnesses';
import { buildCli } from './built-cli';

export interface CliStack {
  /** The real gateway (real Redis and NATS) with a scripted model. */
  readonly gateway: GatewayUnderTest;
  /** Users, sessions and turns through the gateway's API, for what a test sets up or checks. */
  readonly client: ReturnType<typeof sessionApi>;
  /** The tools worker's workspaces on disk. */
  readonly workspaces: string;
  /** The current test's own HOME (and so its own CLI config), removed after it. */
  readonly home: string;
  /** A number of the current test, for names that must be unique per gateway. */
  readonly testId: number;
}

/**
 * What the CLI's integration suites run the built `weft` against, registered in the calling
 * file: a gateway and a real tools worker for the file, and a fresh HOME for each test.
 */
export function cliStack(name: string): CliStack {
  let gateway: GatewayUnderTest | undefined;
  let tools: INestMicroservice | undefined;
  let client: ReturnType<typeof sessionApi> | undefined;
  let workspaces = '';
  let home = '';
  let testId = 0;

  beforeAll(async () => {
    [gateway] = await Promise.all([startGatewayUnderTest(ScriptedModelModule, { INFERENCE_TIMEOUT_MS: '20000' }), buildCli()]);
    workspaces = await mkdtemp(join(tmpdir(), `${name}-ws-`));
    const config = loadConfig(toolsConfigSchema, { NATS_URL: gateway.natsUrl, WORKSPACES_DIR: workspaces, LOG_LEVEL: 'silent' });
    tools = await startToolsWorker(config, createLogger('tools', 'silent'));
    client = sessionApi(gateway.base);
  });

  afterAll(async () => {
    await tools?.close();
    await gateway?.stop();
    if (workspaces) await rm(workspaces, { recursive: true, force: true });
  });

  beforeEach(async (context) => {
    testId++;
    home = await mkdtemp(join(tmpdir(), `${name}-`));
    const own = home;
    context.onTestFinished(() => rm(own, { recursive: true, force: true }));
  });

  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the CLI stack has not started (use it inside the file that called cliStack)');
    return value;
  };
  return {
    get gateway() {
      return started(gateway);
    },
    get client() {
      return started(client);
    },
    get workspaces() {
      return workspaces;
    },
    get home() {
      return home;
    },
    get testId() {
      return testId;
    },
  };
}
