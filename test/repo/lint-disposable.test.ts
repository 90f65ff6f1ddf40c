import { ESLint } from 'eslint'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..', '..')
const message = /^Return a Disposable/

/** The lines of `code` the Lifecycles rule (eslint.config.js) flags, linted as a file of src/main. */
async function flaggedLines(code: string): Promise<number[]> {
  const eslint = new ESLint({ cwd: root })
  const [result] = await eslint.lintText(code, { filePath: join(root, 'src/main/lint-probe.ts') })
  return result!.messages.filter((m) => message.test(m.message)).map((m) => m.line)
}

describe('the Lifecycles lint: a subscription returns a Disposable, in every shape it is written', () => {
  it('flags each shape that hands back a bare unsubscribe function', async () => {
    const shapes = [
      'export interface A { onThing(listener: () => void): () => void }',
      'type Unsubscribe = () => void; export interface B { onThing(listener: () => void): Unsubscribe }',
      'export function onTick(listener: () => void) { const t = setInterval(listener, 1); return () => clearInterval(t) }',
      'export const watchFile = (listener: () => void) => { const t = setInterval(listener, 1); return () => clearInterval(t) }',
      'export const followIt = (listener: () => void) => () => clearInterval(setInterval(listener, 1))',
      'export const o = { subscribe(listener: () => void) { return () => listener() } }',
      'export const p = { onChange: (listener: () => void) => () => listener() }',
    ]
    expect(await flaggedLines(shapes.join('\n'))).toEqual([1, 2, 3, 4, 5, 6, 7])
  })

  it('leaves alone what is not a subscription: a curried handler, a Disposable, a continuation', async () => {
    const fine = [
      "import { toDisposable } from '../shared/disposable'",
      'export const onRound = (base: number) => (snapshot: number) => base + snapshot',
      'export function onTick(listener: () => void) { const t = setInterval(listener, 1); return toDisposable(() => clearInterval(t)) }',
      'export function acquire(): () => void { return () => {} }',
    ]
    expect(await flaggedLines(fine.join('\n'))).toEqual([])
  })
})
