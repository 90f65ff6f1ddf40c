/** Where a worker thread's module is, for every way watchdesk runs (the one lookup for the commit
 * worker, the checkpointer and the forward worker). Runtime imports carry their `.ts` extension:
 * the commit worker's thread runs this under vitest as TypeScript source. */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** `built` (out/main/commit-worker.js) beside the calling module's bundle or one level up from a
 * chunk (out/main/chunks/), beside it under out/bench for the benches, or the TypeScript `source`
 * beside the calling module when the sources run (vitest: Node strips the types). `from` is the
 * caller's `import.meta.url`; null when none is there (not built). */
export function workerFile(from: string, built: string, source: string): string | null {
  const here = dirname(fileURLToPath(from))
  const candidates = [join(here, built), join(here, '..', built), join(here, source)]
  return candidates.find((file) => existsSync(file)) ?? null
}
