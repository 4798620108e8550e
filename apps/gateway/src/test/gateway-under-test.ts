import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Type } from '@nestjs/common';
import { loadConfig } from '@weft/config';
import { createLogger } from '@weft/logging';
import { createNatsMicroservice } from '@weft/messaging';
import { startNats, startRedis } from '../../../../test/support/containers';
import { gatewaySettingsSchema } from '../config';
import { createGatewayApp } from '../create-app';
import { type HttpRoute, httpRoutes } from './http-routes';

export const TEST_ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

export interface GatewayUnderTest {
  /** `http://127.0.0.1:<port>` of the gateway, listening on a random port. */
  base: string;
  /** The servers and key prefix it uses, for real workers a test starts beside it. */
  natsUrl: string;
  redisUrl: string;
  redisKeyPrefix: string;
  /** Every route the gateway serves. */
  routes: HttpRoute[];
  /** Stops the in-test workers and NATS, to see how the gateway copes; safe to call twice. */
  stopNats(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Real Redis and NATS, the given NestJS module as the workers (the gateway is what is under
 * test), and the gateway itself in-process with its own Redis key prefix.
 */
export async function startGatewayUnderTest(
  workersModule: Type<unknown>,
  env: Record<string, string> = {},
): Promise<GatewayUnderTest> {
  const [redis, nats] = await Promise.all([startRedis(), startNats()]);
  const id = randomBytes(4).toString('hex');
  const workers = await createNatsMicroservice(workersModule, {
    nats: nats.url,
    queue: `gateway-test-workers-${id}`,
    logger: createLogger('test-workers', 'silent'),
  });
  await workers.listen();
  const config = loadConfig(gatewaySettingsSchema, {
    REDIS_URL: redis.url,
    NATS_URL: nats.url,
    WEFT_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    REDIS_KEY_PREFIX: `test-${id}:`,
    LOG_LEVEL: 'silent',
    NATS_REQUEST_TIMEOUT_MS: '5000',
    ...env,
  });
  const app = await createGatewayApp(config);
  await app.listen(0, '127.0.0.1');
  let natsStopped: Promise<void> | undefined;
  const stopNats = () =>
    (natsStopped ??= (async () => {
      await workers.close();
      await nats.stop();
    })());
  return {
    base: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`,
    natsUrl: nats.url,
    redisUrl: redis.url,
    redisKeyPrefix: config.REDIS_KEY_PREFIX,
    routes: httpRoutes(app),
    stopNats,
    stop: async () => {
      await app.close();
      await Promise.all([stopNats(), redis.stop()]);
    },
  };
}
