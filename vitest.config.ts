import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

// Most test files wait on something outside this process (a child process, PostgreSQL, Chromium,
// a socket), so more files than cores run at once: vitest's default (cores − 1) is a single file at
// a time on a 2-core machine. WATCHDESK_TEST_WORKERS overrides it.
const workers = Number(process.env.WATCHDESK_TEST_WORKERS) || Math.max(3, availableParallelism())

// Three projects: fast unit/integration tests under Node, the renderer's stores and client under
// happy-dom, and end-to-end tests that drive the built app in Chromium (they need `npm run build`
// first; `npm test` does that). They run side by side; the e2e files share one Chromium.
export default defineConfig({
  test: {
    maxWorkers: workers,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'test/renderer/**'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'renderer',
          include: ['test/renderer/**/*.test.{ts,tsx}'],
          environment: 'happy-dom',
          testTimeout: 10_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          globalSetup: ['test/support/chromium-server.ts'],
        },
      },
    ],
  },
})
