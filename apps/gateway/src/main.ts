import type { Server } from 'node:http';
import { ConfigError, loadConfig } from '@weft/config';
import { createLogger } from '@weft/logging';
import { gatewaySettingsSchema } from './config';
import { createGatewayApp } from './create-app';
import { startTracing } from '@weft/telemetry';

async function bootstrap(): Promise<void> {
  const config = loadConfig(gatewaySettingsSchema);
  // Before the app exists, so every span it makes has a provider to go to (a no-op one when off).
  startTracing('weft-gateway', config);
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const app = await createGatewayApp(config, { logger });
  await app.listen(config.PORT, config.HOST);
  // Idle connections outlive the usual client and load-balancer idle timeouts (60 s), so the
  // gateway is never the side that closes a socket a client is about to reuse (Node's 5 s
  // default loses such requests with "other side closed" when the client's timer runs late).
  const server = app.getHttpServer() as Server;
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  logger.info({ port: config.PORT, host: config.HOST }, 'gateway listening');
}

bootstrap().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message);
  else console.error(error);
  process.exit(1);
});
