import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** The page's only runtime import from libs: the event schemas the gateway streams. */
const contracts = new URL('../../libs/contracts/src/index.ts', import.meta.url).pathname;

// Built into apps/web/dist, which the gateway serves at / (docs/web.md). `npm run dev -w @weft/web`
// serves it with hot reload and forwards the API to a gateway on localhost:8080.
export default defineConfig({
  plugins: [react()],
  resolve: { alias: { '@weft/contracts': contracts } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      // zod marks pure calls in comments that Rollup cannot place; harmless, and not ours to fix.
      onwarn(warning, warn) {
        if (warning.code !== 'INVALID_ANNOTATION') warn(warning);
      },
    },
  },
  server: { proxy: { '/v1': 'http://127.0.0.1:8080' } },
});
