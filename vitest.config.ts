import { resolve } from 'node:path';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// One runner for the whole repo. SWC (not esbuild) because NestJS needs decorator metadata.
const alias = {
  '@weft/contracts': resolve(__dirname, 'libs/contracts/src/index.ts'),
  '@weft/config': resolve(__dirname, 'libs/config/src/index.ts'),
  '@weft/telemetry': resolve(__dirname, 'libs/telemetry/src/index.ts'),
  '@weft/messaging': resolve(__dirname, 'libs/messaging/src/index.ts'),
  '@weft/logging': resolve(__dirname, 'libs/logging/src/index.ts'),
  '@weft/metrics': resolve(__dirname, 'libs/metrics/src/index.ts'),
};
const plugins = [swc.vite({ module: { type: 'es6' } })];

export default defineConfig({
  test: {
    reporters: ['default'],
    // 2 cores, and integration tests share one Docker engine: one file at a time.
    fileParallelism: false,
    projects: [
      {
        plugins,
        resolve: { alias },
        test: { name: 'unit', include: ['{apps,libs}/*/src/**/*.spec.ts', 'scripts/**/*.spec.ts', 'bench/**/*.spec.ts'], environment: 'node' },
      },
      {
        plugins,
        resolve: { alias },
        test: {
          name: 'integration',
          include: ['{apps,libs}/*/src/**/*.int-spec.ts', 'test/**/*.int-spec.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
      {
        plugins,
        resolve: { alias },
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e-spec.ts'],
          // One compose stack for every e2e file: started once, stopped at the end.
          globalSetup: ['e2e/support/global-setup.ts'],
          environment: 'node',
          testTimeout: 300_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
