import { ESLint } from 'eslint'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..', '..')

/** The functions of `code` the short-functions rule (eslint.config.js) flags, linted as a file at
 * `path`: the line each starts on. */
async function flaggedLines(code: string, path: string): Promise<number[]> {
  const eslint = new ESLint({ cwd: root })
  const [result] = await eslint.lintText(code, { filePath: join(root, path) })
  return result!.messages.filter((m) => m.ruleId === 'max-lines-per-function').map((m) => m.line)
}

/** A factory of `lines` lines in all, its body one statement a line. */
function factoryOf(lines: number): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i}`)
  return ['export function createThing(): number {', ...body, '}'].join('\n')
}

describe('the short-functions lint: no function in src/main over 150 lines', () => {
  it('flags a back-end function of 151 lines, blank lines and comments counted', async () => {
    const padded = factoryOf(149).replace('  const v0 = 0', '  const v0 = 0\n\n  // why')
    expect(await flaggedLines(factoryOf(151), 'src/main/lint-probe.ts')).toEqual([1])
    expect(await flaggedLines(padded, 'src/main/forward/lint-probe.ts')).toEqual([1])
  })

  it('leaves alone a function of 150 lines, and code outside src/main', async () => {
    expect(await flaggedLines(factoryOf(150), 'src/main/lint-probe.ts')).toEqual([])
    expect(await flaggedLines(factoryOf(151), 'src/shared/lint-probe.ts')).toEqual([])
  })
})
