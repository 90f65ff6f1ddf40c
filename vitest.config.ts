import { readdirSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { defineConfig } from 'vitest/config'
import { DurationsRecorder, LongestFirstSequencer } from './test/support/sequencer.ts'

// Most test files wait on something outside this process (a child process, PostgreSQL, Chromium,
// a socket), so more files than cores run at once: vitest's default (cores − 1) is a single file at
// a time on a 2-core machine. WATCHDESK_TEST_WORKERS overrides it.
const workers = Number(process.env.WATCHDESK_TEST_WORKERS) || Math.max(3, availableParallelism())

const unitExcludes = ['test/e2e/**', 'test/renderer/**']

/** Unit test files that replace a module (`vi.mock`/`vi.doMock`): a replaced module only takes
 * effect in a fresh module graph, so these run isolated (a new worker each). */
function filesReplacingModules(): string[] {
  return readdirSync('test', { recursive: true, encoding: 'utf8' })
    .map((f) => join('test', f).split('\\').join('/'))
    .filter((f) => f.endsWith('.test.ts') && !/^test\/(e2e|renderer)\//.test(f))
    .filter((f) => /\bvi\.(mock|doMock)\(/.test(readFileSync(f, 'utf8')))
}
const isolatedUnitFiles = filesReplacingModules()

const unitSettings = { environment: 'node', testTimeout: 30_000, hookTimeout: 30_000 } as const

// Three kinds of test: unit/integration tests under Node, the renderer's stores and client under
// happy-dom, and end-to-end tests that drive the built app in Chromium (they need `npm run build`
// first; `npm test` does that). They run side by side; the e2e files share one Chromium.
//
// The unit files share their workers' module graphs (`isolate: false`): with isolation every one
// of ~200 files started a worker and evaluated the back end again, which was about 1 s of CPU per
// file, more than half of what the short files cost (40 of them: 71 → 28 CPU-seconds). Each file
// still sets up and tears down its own state (temp dirs, servers, databases) in its hooks; a file
// must not depend on a module being evaluated fresh for it. Files that replace modules run in
// 'unit-isolated'.
export default defineConfig({
  test: {
    maxWorkers: workers,
    // Longest files first by the durations recorded in test/durations.json (a clean clone has no
    // results cache; vitest's fallback, the largest file first, left long files to start last).
    sequence: { sequencer: LongestFirstSequencer },
    reporters: ['default', new DurationsRecorder()],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...unitExcludes, ...isolatedUnitFiles],
          isolate: false,
          // A PostgreSQL cluster per worker, started when a file there first asks (usePostgres);
          // the worker threads' entries bundled once per run (worker-bundles.ts says why).
          globalSetup: ['test/support/postgres-shared.ts', 'test/support/worker-bundles.ts'],
          ...unitSettings,
        },
      },
      ...(isolatedUnitFiles.length === 0
        ? []
        : [{ test: { name: 'unit-isolated', include: isolatedUnitFiles, isolate: true, ...unitSettings } }]),
      {
        test: {
          name: 'renderer',
          include: ['test/renderer/**/*.test.{ts,tsx}'],
          environment: 'happy-dom',
          // As in 'unit': isolated, each of the 11 files started a fork that loaded happy-dom and the
          // stores again, 20.1 CPU-seconds for 61 tests against 7.9 shared (issue 33.6, session 14).
          // The stores are module singletons, so a file resets the ones it reads to their initial
          // state (`getInitialState()`, not a `getState()` taken when the file loads) in its hooks.
          isolate: false,
          testTimeout: 10_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          // Every e2e file imports the back end (serve mode runs in-process) and playwright-core: with
          // isolation each file paid for a fresh worker that evaluated them again, about 2 s of CPU
          // a file on a loaded machine (6 files importing them: 16-22 CPU-seconds isolated, 7.5
          // shared). As in 'unit', each file sets up and tears down its own consoles, pages and
          // temp dirs in its hooks, and none replaces a module.
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
          globalSetup: ['test/support/chromium-server.ts', 'test/support/worker-bundles.ts'],
        },
      },
    ],
  },
})
