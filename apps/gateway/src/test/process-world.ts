import { randomBytes } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import { createLogger } from '@weft/logging';
import { WireErrorFilter, createNatsMicroservice } from '@weft/messaging';
import { type StartedService, startNats, startRedis } from '../../../../test/support/containers';
import { buildGateway } from './gateway-process';
import { ScriptedWorkersModule } from './scripted-workers';

export const PROCESS_ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

/** Real Redis and NATS, the scripted workers in this process, and the env gateway processes start with. */
export interface ProcessWorld {
  redis: StartedService;
  nats: StartedService;
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Builds the gateway and starts what its processes talk to; `extraEnv` adds to (or overrides) the
 * env every gateway of the test file gets. Each world has its own Redis key prefix.
 */
export async function startProcessWorld(name: string, extraEnv: Record<string, string> = {}): Promise<ProcessWorld> {
  buildGateway();
  const [redis, nats] = await Promise.all([startRedis(), startNats()]);
  const workers: INestMicroservice = await createNatsMicroservice(ScriptedWorkersModule, {
    nats: nats.url,
    queue: `gateway-${name}-fakes`,
    logger: createLogger('scripted-workers', 'silent'),
  });
  workers.useGlobalFilters(new WireErrorFilter(() => undefined));
  await workers.listen();
  const env = {
    REDIS_URL: redis.url,
    NATS_URL: nats.url,
    WEFT_ADMIN_TOKEN: PROCESS_ADMIN_TOKEN,
    REDIS_KEY_PREFIX: `${name}-${randomBytes(4).toString('hex')}:`,
    LOG_LEVEL: 'warn',
    AGENT_JOB_LOCK_MS: '1000',
    ...extraEnv,
  };
  return {
    redis,
    nats,
    env,
    stop: async () => {
      await workers.close();
      await Promise.all([redis.stop(), nats.stop()]);
    },
  };
}

/** One JSON request to a gateway process. */
export async function processApi(base: string, method: string, path: string, token: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}
