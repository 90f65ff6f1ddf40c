import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { workerFile } from '../../../src/main/workers'
import { commitWorkerFile } from '../../../src/main/webhooks/committer'
import { checkpointWorkerFile } from '../../../src/main/webhooks/checkpointer'
import { forwardWorkerFile } from '../../../src/main/forward/host'
import { useTempDir } from '../../support/temp'

const tempDir = useTempDir('watchdesk-worker-file-')

/** A calling module at <dir>/code/caller.js, and the files that exist around it. */
function layout(files: string[]): { dir: string; from: string } {
  const dir = tempDir()
  for (const file of ['code/caller.js', ...files]) {
    mkdirSync(join(dir, file, '..'), { recursive: true })
    writeFileSync(join(dir, file), '')
  }
  return { dir, from: pathToFileURL(join(dir, 'code/caller.js')).href }
}

/** src/main/workers/file.ts: which module a worker thread starts from. */
describe('where a worker thread starts from', () => {
  it('a built entry beside the calling bundle wins over the run’s bundles and the source', () => {
    const { dir, from } = layout(['code/w.js', 'bundles/w.js', 'code/w.ts'])
    expect(workerFile(from, 'w.js', 'w.ts', join(dir, 'bundles'))).toBe(join(dir, 'code/w.js'))
  })

  it('a built entry one level up from a chunk wins over the run’s bundles', () => {
    const { dir, from } = layout(['w.js', 'bundles/w.js', 'code/w.ts'])
    expect(workerFile(from, 'w.js', 'w.ts', join(dir, 'bundles'))).toBe(join(dir, 'w.js'))
  })

  it('from the sources, the entry in the WATCHDESK_WORKER_BUNDLES folder rather than the TypeScript', () => {
    const { dir, from } = layout(['bundles/w.js', 'code/w.ts'])
    expect(workerFile(from, 'w.js', 'w.ts', join(dir, 'bundles'))).toBe(join(dir, 'bundles/w.js'))
  })

  it('the TypeScript source when the bundles folder lacks the entry or none is named; null when nothing is there', () => {
    const { dir, from } = layout(['bundles/other.js', 'code/w.ts'])
    expect(workerFile(from, 'w.js', 'w.ts', join(dir, 'bundles'))).toBe(join(dir, 'code/w.ts'))
    expect(workerFile(from, 'w.js', 'w.ts', undefined)).toBe(join(dir, 'code/w.ts'))
    expect(workerFile(from, 'x.js', 'x.ts', join(dir, 'bundles'))).toBeNull()
  })

  // The suite's CPU: a thread that runs the sources strips the types of each module it imports at
  // every start (test/support/worker-bundles.ts). Fails if the unit project loses that global setup.
  it('in this test run, the commit, checkpoint and forward workers start from the run’s bundled entries', () => {
    const bundles = process.env.WATCHDESK_WORKER_BUNDLES
    expect(bundles, 'vitest.config.ts: the unit project runs test/support/worker-bundles.ts').toBeTruthy()
    expect(commitWorkerFile()).toBe(join(bundles!, 'commit-worker.js'))
    expect(checkpointWorkerFile()).toBe(join(bundles!, 'checkpoint-worker.js'))
    expect(forwardWorkerFile()).toBe(join(bundles!, 'forward-worker.js'))
  })

  // Node's ES face of node:http loads undici at import (about 40 ms of CPU a forward worker start):
  // the run's bundles load it through require(), as the app's build does (build/node-http-by-require.ts).
  it('in this test run, no bundled worker module imports node:http as an ES module', () => {
    const bundles = process.env.WATCHDESK_WORKER_BUNDLES!
    const modules = readdirSync(bundles, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.js'),
    )
    const code = modules.map((f) => readFileSync(join(bundles, f), 'utf8'))
    expect(code.join('\n')).toMatch(/createRequire\(import\.meta\.url\)\("node:http"\)/)
    const esImports = modules.filter((_, i) => /from\s*["'](node:)?http["']/.test(code[i]!))
    expect(esImports).toEqual([])
  })
})
