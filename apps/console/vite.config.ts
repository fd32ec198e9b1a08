import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
// `npm run dev:console`: Vite serves the console and forwards the API paths to a running gateway
const api = process.env.CONSOLE_API_URL ?? 'http://localhost:3000';
const proxied = ['/api', '/v1', '/v2', '/docs', '/docs-json', '/health', '/ready'];

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    // hashed file names under /assets/ are served with a one-year immutable cache
    assetsDir: 'assets',
    sourcemap: false,
    // the budget that matters is the gzip size of the initial JS, checked by scripts/console-size.js
    chunkSizeWarningLimit: 900,
    // no inline data: URIs for scripts; small images may still inline (img-src allows data:)
    assetsInlineLimit: 2048,
  },
  server: {
    port: 5173,
    proxy: Object.fromEntries(proxied.map((p) => [p, { target: api, changeOrigin: false }])),
  },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'component',
          environment: 'jsdom',
          include: ['src/**/*.test.tsx', 'src/**/*.test.ts'],
          setupFiles: ['src/test/setup.ts'],
          css: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser-e2e',
          environment: 'node',
          include: ['e2e/**/*.e2e.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
