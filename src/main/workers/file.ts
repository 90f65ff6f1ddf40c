/** Where a worker thread's module is, for every way watchdesk runs (the one lookup for the commit
 * worker, the checkpointer and the forward worker). Runtime imports carry their `.ts` extension:
 * the commit worker's thread runs this under vitest as TypeScript source. */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** `built` (out/main/commit-worker.js) beside the calling module's bundle or one level up from a
 * chunk (out/main/chunks/), beside it under out/bench for the benches, or, when the sources run
 * (vitest), the same entry built into the folder WATCHDESK_WORKER_BUNDLES names if it is there,
 * else the TypeScript `source` beside the calling module (Node strips the types). `from` is the
 * caller's `import.meta.url`; null when none is there (not built).
 *
 * Why the folder: a thread that runs the sources strips the types of every module it imports, in
 * that thread, at each start (the commit worker's about 20 modules: 0.43 s of CPU a start against
 * 0.14 s bundled), and the test suite starts several hundred worker threads. The suite bundles the
 * entries once per run (test/support/worker-bundles.ts). A built watchdesk never reads it: its
 * entries are beside its bundle. */
export function workerFile(
  from: string,
  built: string,
  source: string,
  bundles: string | undefined = process.env.WATCHDESK_WORKER_BUNDLES,
): string | null {
  const here = dirname(fileURLToPath(from))
  const candidates = [join(here, built), join(here, '..', built)]
  if (bundles) candidates.push(join(bundles, built))
  candidates.push(join(here, source))
  return candidates.find((file) => existsSync(file)) ?? null
}
