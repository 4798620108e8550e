import { resolve } from 'node:path';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// vite-node runs the benchmarks (bench/*/run.ts) from source; SWC because NestJS needs decorator metadata.
const root = resolve(__dirname, '..');
export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: {
    alias: {
      '@weft/contracts': resolve(root, 'libs/contracts/src/index.ts'),
      '@weft/config': resolve(root, 'libs/config/src/index.ts'),
      '@weft/telemetry': resolve(root, 'libs/telemetry/src/index.ts'),
      '@weft/messaging': resolve(root, 'libs/messaging/src/index.ts'),
      '@weft/logging': resolve(root, 'libs/logging/src/index.ts'),
      '@weft/metrics': resolve(root, 'libs/metrics/src/index.ts'),
    },
  },
});
