import 'reflect-metadata';
import { loadConfig, sandboxConfigSchema } from '@weft/config';
import { listenAndMarkReady } from '@weft/messaging';
import { createSandboxApp } from './app';

async function bootstrap(): Promise<void> {
  const config = loadConfig(sandboxConfigSchema);
  const app = await createSandboxApp(config);
  await listenAndMarkReady(app, config.READY_FILE);
}

bootstrap().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
