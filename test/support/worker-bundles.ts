import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'rolldown'
import type { TestProject } from 'vitest/node'
import { nodeHttpByRequire } from '../../build/node-http-by-require.ts'

/** The worker threads' entries, named as the build names them (electron.vite.config.ts). */
export const workerEntries = {
  'commit-worker': 'src/main/webhooks/commit-worker.ts',
  'checkpoint-worker': 'src/main/webhooks/checkpoint-worker.ts',
  'forward-worker': 'src/main/forward/worker.ts',
} as const

/** Builds the worker entries from the current sources into `dir` (commit-worker.js, … at its top,
 * shared code in chunks beside them), as the app's build does: better-sqlite3 stays external,
 * imported by its resolved path (`dir` is a temp folder, which no node_modules is above), and
 * `node:http` is loaded through require() as in the build (build/node-http-by-require.ts: its ES
 * face loads undici, about 40 ms of CPU at each forward worker's start). */
export async function bundleWorkers(dir: string): Promise<void> {
  const input = Object.fromEntries(Object.entries(workerEntries).map(([name, file]) => [name, resolve(file)]))
  await build({
    input,
    platform: 'node',
    external: ['better-sqlite3'],
    plugins: [nodeHttpByRequire()],
    logLevel: 'silent',
    output: {
      dir,
      format: 'esm',
      entryFileNames: '[name].js',
      chunkFileNames: 'chunks/[name]-[hash].js',
      paths: {
        'better-sqlite3': pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href,
      },
    },
  })
}

/** Global setup: the worker entries bundled once per run, named to every worker of the run by
 * WATCHDESK_WORKER_BUNDLES (src/main/workers/file.ts), so that a worker thread started from the
 * sources loads built JavaScript instead of stripping the types of its ~20 modules itself at every
 * start (0.43 → 0.14 s of CPU per commit-worker start; the unit project starts several hundred
 * worker threads). Vitest gives its workers this process's environment as it is after the global
 * setups. The bundle is built from the sources as they are when the run starts, and again before
 * each rerun in watch mode (so an edited worker module is what the next run tests). */
export default async function setup(project: TestProject): Promise<() => void> {
  // Another project's global setup in this run (or the caller) has named a folder already.
  if (process.env.WATCHDESK_WORKER_BUNDLES) return () => {}
  const dir = mkdtempSync(join(tmpdir(), 'watchdesk-worker-bundles-'))
  await bundleWorkers(dir)
  process.env.WATCHDESK_WORKER_BUNDLES = dir
  project.onTestsRerun(() => bundleWorkers(dir))
  return () => {
    delete process.env.WATCHDESK_WORKER_BUNDLES
    rmSync(dir, { recursive: true, force: true })
  }
}
