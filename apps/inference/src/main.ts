// First: sets the libuv pool size before anything can start the pool.
import './uv-threadpool';
import 'reflect-metadata';
import { inferenceConfigSchema, loadConfig } from '@weft/config';
import { createLogger } from '@weft/logging';
import { listenAndMarkReady } from '@weft/messaging';
import { createInferenceApp } from './app';
import { startTracing } from '@weft/telemetry';
import { DEFAULT_YOUNG_GENERATION_NOTE, youngGenerationMiB } from './young-generation';

async function bootstrap(): Promise<void> {
  const config = loadConfig(inferenceConfigSchema);
  // Before the app exists, so every span it makes has a provider to go to (a no-op one when off).
  startTracing('weft-inference', config);
  const logger = createLogger('inference', config.LOG_LEVEL);
  if (youngGenerationMiB() === undefined) logger.info(DEFAULT_YOUNG_GENERATION_NOTE);
  const app = await createInferenceApp(config, logger);
  await listenAndMarkReady(app, config.READY_FILE);
}

bootstrap().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
