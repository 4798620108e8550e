import 'reflect-metadata';
import { loadConfig, toolsConfigSchema } from '@weft/config';
import { createLogger } from '@weft/logging';
import { markReady } from '@weft/messaging';
import { startToolsWorker } from './bootstrap';
import { startTracing } from '@weft/telemetry';

async function main(): Promise<void> {
  const config = loadConfig(toolsConfigSchema);
  // Before the app exists, so every span it makes has a provider to go to (a no-op one when off).
  startTracing('weft-tools', config);
  const logger = createLogger('tools', config.LOG_LEVEL);
  await startToolsWorker(config, logger);
  markReady(config.READY_FILE);
  logger.info({ workspacesDir: config.WORKSPACES_DIR }, 'tools worker listening');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
