import 'reflect-metadata';
import { loadConfig, sandboxConfigSchema } from '@weft/config';
import { listenAndMarkReady } from '@weft/messaging';
import { createSandboxApp } from './app';
import { startTracing } from '@weft/telemetry';

async function bootstrap(): Promise<void> {
  const config = loadConfig(sandboxConfigSchema);
  // Before the app exists, so every span it makes has a provider to go to (a no-op one when off).
  startTracing('weft-sandbox', config);
  const app = await createSandboxApp(config);
  await listenAndMarkReady(app, config.READY_FILE);
}

bootstrap().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
