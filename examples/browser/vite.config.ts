import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

// In your app, `petstore-mock/browser` comes from node_modules and this alias is not needed:
// the example uses the repository's source so that it always runs the code next to it.
export default defineConfig({
  resolve: {
    alias: { 'petstore-mock/browser': fileURLToPath(new URL('../../src/browser.ts', import.meta.url)) },
  },
  build: {
    // The mock is a chunk of its own (msw, faker and the seeded data), loaded only when mocking.
    chunkSizeWarningLimit: 1500,
  },
})
