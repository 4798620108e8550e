import { ConfigError, loadConfig } from '@weft/config';
import { createLogger } from '@weft/logging';
import { gatewaySettingsSchema } from './config';
import { createGatewayApp } from './create-app';

async function bootstrap(): Promise<void> {
  const config = loadConfig(gatewaySettingsSchema);
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const app = await createGatewayApp(config, { logger });
  await app.listen(config.PORT, config.HOST);
  logger.info({ port: config.PORT, host: config.HOST }, 'gateway listening');
}

bootstrap().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message);
  else console.error(error);
  process.exit(1);
});
