import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { durationsFile, longestFirst, recordedDurations } from '../support/sequencer'
import type { FileToOrder } from '../support/sequencer'

const testDir = join(import.meta.dirname, '..')

const testFiles = () =>
  readdirSync(testDir, { recursive: true, encoding: 'utf8' })
    .map((f) => join('test', f).split('\\').join('/'))
    .filter((f) => /\.test\.tsx?$/.test(f))
    .sort()

/** test/durations.json orders a clean clone's run (test/support/sequencer.ts): it must not rot. */
describe('the recorded test durations (test/durations.json)', () => {
  it('name every test file, and no file that is gone', () => {
    const recorded = Object.keys(recordedDurations()).sort()
    const files = testFiles()
    const fix = `run them with WATCHDESK_UPDATE_DURATIONS=1 (it rewrites ${durationsFile})`
    expect(
      files.filter((f) => !recorded.includes(f)),
      `test files without a recorded duration: ${fix}`,
    ).toEqual([])
    expect(
      recorded.filter((f) => !files.includes(f)),
      `recorded durations of files that are gone: ${fix}`,
    ).toEqual([])
    expect(Object.values(recordedDurations()).every((s) => Number.isFinite(s) && s >= 0)).toBe(true)
  })
})

describe('the order test files start in', () => {
  const file = (path: string, seconds: number | undefined, over: Partial<FileToOrder> = {}) => ({
    project: 'unit',
    path,
    failed: false,
    seconds,
    ...over,
  })

  it('starts the longest first, so a run ends on short files on every worker', () => {
    const order = longestFirst([file('a', 2), file('b', 47), file('c', 0.1), file('d', 20)])
    expect(order.map((f) => f.path)).toEqual(['b', 'd', 'a', 'c'])
  })

  it('starts a file that failed last time, then one with no duration known, before the longest', () => {
    const order = longestFirst([file('long', 47), file('new', undefined), file('broke', 1, { failed: true })])
    expect(order.map((f) => f.path)).toEqual(['broke', 'new', 'long'])
  })

  it("keeps each project's files together (a worker is reused only by its own project's next file)", () => {
    const order = longestFirst([
      file('u1', 5),
      file('e1', 40, { project: 'e2e' }),
      file('u2', 47),
      file('e2', 4, { project: 'e2e' }),
    ])
    expect(order.map((f) => f.path)).toEqual(['e1', 'e2', 'u2', 'u1'])
  })
})
