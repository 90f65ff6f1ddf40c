import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BaseSequencer } from 'vitest/node'
import type { Reporter, TestModule, TestSpecification } from 'vitest/node'

/** How long each test file took (seconds), as recorded in the repository: `test/durations.json`.
 * vitest orders files by its results cache, which a clean clone (CI) does not have; it then falls
 * back to file size, which put 20–47 s files among the last to start and left a core idle while
 * they ran out. The recorded durations give a clean clone the order a warm cache gives.
 *
 * Kept true by test/repo/test-durations.test.ts (every test file has an entry, no entry names a
 * file that is gone); refreshed by any run with WATCHDESK_UPDATE_DURATIONS=1 (the files that ran
 * get their new durations: `WATCHDESK_UPDATE_DURATIONS=1 npm test` for all of them). */
// From import.meta.url: vitest bundles its config, and keeps only that one pointing at this file.
const root = fileURLToPath(new URL('../..', import.meta.url))
export const durationsFile = join(root, 'test', 'durations.json')

export type Durations = Record<string, number>

export function recordedDurations(file = durationsFile): Durations {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Durations) : {}
}

/** What the order is decided by, for one test file. */
export interface FileToOrder {
  project: string
  /** Path from the repository root, with forward slashes. */
  path: string
  /** Failed in this checkout's last run (vitest's results cache). */
  failed: boolean
  /** Seconds: the recorded duration; for a file not recorded yet, this checkout's last run (the
   * cache), if any. Recorded first, so that the order is the same on every machine and load. */
  seconds: number | undefined
}

/** Projects one after another (a worker is reused only by the next file of its own project, so
 * interleaving projects would start a fresh worker, and load the back end again, at every switch);
 * within a project: files that failed last time first, then files with no duration known (a new
 * file may be long), then the longest first, so that the run ends on short files on every worker
 * instead of on one long file with the other workers idle. */
export function longestFirst<T extends FileToOrder>(files: readonly T[]): T[] {
  return [...files].sort(
    (a, b) =>
      (a.project < b.project ? -1 : a.project > b.project ? 1 : 0) ||
      Number(b.failed) - Number(a.failed) ||
      Number(b.seconds === undefined) - Number(a.seconds === undefined) ||
      (b.seconds ?? 0) - (a.seconds ?? 0) ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  )
}

const repoPath = (moduleId: string) => relative(root, moduleId).split('\\').join('/')

/** vitest's sequencer with `longestFirst` as its order (sharding stays vitest's). */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const recorded = recordedDurations()
    const cache = this.ctx.cache
    const described = files.map((spec) => {
      const result = cache.getTestSpecificationResult(spec)
      const path = repoPath(spec.moduleId)
      const cached = result?.duration === undefined ? undefined : result.duration / 1000
      return {
        spec,
        project: spec.project.name,
        path,
        failed: result?.failed ?? false,
        seconds: recorded[path] ?? cached,
      }
    })
    return longestFirst(described).map((f) => f.spec)
  }
}

/** With WATCHDESK_UPDATE_DURATIONS=1: writes the durations of the files that ran to the end
 * (passed or failed; not skipped) into test/durations.json, keeping the others' and dropping entries of files that are gone. */
export class DurationsRecorder implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (process.env.WATCHDESK_UPDATE_DURATIONS !== '1') return
    const durations = recordedDurations()
    for (const module of testModules) {
      if (module.state() !== 'passed' && module.state() !== 'failed') continue
      durations[repoPath(module.moduleId)] = Math.round(module.diagnostic().duration / 100) / 10
    }
    const kept = Object.keys(durations)
      .filter((path) => existsSync(join(root, path)))
      .sort()
    writeFileSync(
      durationsFile,
      JSON.stringify(Object.fromEntries(kept.map((p) => [p, durations[p]])), null, 2) + '\n',
    )
  }
}
