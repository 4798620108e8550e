import 'reflect-metadata';
import { loadConfig, toolsConfigSchema } from '@weft/config';
import { createLogger } from '@weft/logging';
import { markReady } from '@weft/messaging';
import { startToolsWorker } from './bootstrap';

async function main(): Promise<void> {
  const config = loadConfig(toolsConfigSchema);
  const logger = createLogger('tools', config.LOG_LEVEL);
  await startToolsWorker(config, logger);
  markReady(config.READY_FILE);
  logger.info({ workspacesDir: config.WORKSPACES_DIR }, 'tools worker listening');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
