import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

const here = fileURLToPath(new URL('.', import.meta.url))

// The dashboard is served by the Linkline process under /app (src/dashboard/dashboard.routes.ts)
// from dist/web: hashed file names under assets/ (cached for a year), index.html revalidated.
export default defineConfig({
  root: here,
  base: '/app/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    // No inline script anywhere: the page runs under script-src 'self'.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
    reportCompressedSize: true,
  },
  server: { proxy: { '/v1': 'http://localhost:8080' } },
})
