import { spawn } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Config } from '../../src/shared/config'
import { version } from '../../src/main/version'
import { useTestConsole } from '../support/console'
import { useTempDir } from '../support/temp'

/** Every fenced block in docs/ that a reader would copy, run as written. A block's info string
 * says what it is: `sh` and `ts` blocks are run (a doc's blocks in order, in one folder of its
 * own with `bin/` and `watchdesk` as in a checkout, against a running console); `json` blocks are
 * config.json excerpts, checked with the config's own schema; `text` is output or a diagram;
 * `LANG norun: why` is a block this machine cannot run (the test lists them with their reasons). */

const repoRoot = join(import.meta.dirname, '..', '..')
const docsDir = join(repoRoot, 'docs')

interface Block {
  doc: string
  line: number
  lang: string
  norun: string | null
  code: string
}

function blocksOf(doc: string): Block[] {
  const lines = readFileSync(join(docsDir, doc), 'utf8').split('\n')
  const blocks: Block[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i]!)
    if (!open) continue
    const end = lines.findIndex((l, j) => j > i && l === '```')
    const [lang = '', ...rest] = open[1]!.split(' ')
    const info = rest.join(' ')
    blocks.push({
      doc,
      line: i + 1,
      lang,
      norun: info.startsWith('norun:') ? info.slice('norun:'.length).trim() : null,
      code: lines.slice(i + 1, end).join('\n') + '\n',
    })
    i = end
  }
  return blocks
}

const blocks = readdirSync(docsDir)
  .filter((f) => f.endsWith('.md'))
  .sort()
  .flatMap(blocksOf)
const runnable = blocks.filter((b) => b.norun === null && (b.lang === 'sh' || b.lang === 'ts'))
const where = (b: Block) => `docs/${b.doc}:${b.line}`

describe('the code blocks of docs/', () => {
  const tempDir = useTempDir('watchdesk-docs-blocks-', { per: 'file' })
  const startConsole = useTestConsole({ per: 'file' })
  const workspaces = new Map<string, string>()
  let env: NodeJS.ProcessEnv = {}

  beforeAll(async () => {
    const home = tempDir()
    const dataDir = tempDir()
    const c = await startConsole({ dataDir })
    const bin = join(home, 'bin')
    mkdirSync(bin)
    symlinkSync(join(repoRoot, 'bin', 'watchdesk'), join(bin, 'watchdesk'))
    env = {
      HOME: home,
      PATH: `${bin}:${process.env.PATH}`,
      WATCHDESK_DATA_DIR: dataDir,
      WATCHDESK_URL: c.url,
      WATCHDESK_TOKEN: c.token,
      npm_config_cache: join(home, '.npm'),
    }
  }, 60_000)

  afterAll(() => {
    const skipped = blocks.filter((b) => b.norun !== null).map((b) => `  ${where(b)}: ${b.norun}`)
    console.log(`docs code blocks not run here (${skipped.length}):\n${skipped.join('\n')}`)
  })

  /** A doc's folder, as a checkout's: bin/watchdesk, node_modules, an ES module package. */
  function workspaceOf(doc: string): string {
    let dir = workspaces.get(doc)
    if (dir) return dir
    dir = tempDir()
    symlinkSync(join(repoRoot, 'bin'), join(dir, 'bin'))
    symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'))
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
    workspaces.set(doc, dir)
    return dir
  }

  /** Not spawnSync: the console answering the blocks runs in this process. */
  function run(command: string, args: string[], cwd: string) {
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (c) => (stdout += c))
      child.stderr.on('data', (c) => (stderr += c))
      child.on('error', reject)
      child.on('close', (code) => resolve({ code, stdout, stderr }))
    })
  }

  it('every block says what it is: sh, ts, json, text, or norun with a reason', () => {
    for (const b of blocks) {
      expect(['sh', 'ts', 'json', 'text'], where(b)).toContain(b.lang)
      if (b.norun !== null) expect(b.norun.length, `${where(b)} says why it is not run`).toBeGreaterThan(10)
    }
    expect(runnable.length).toBeGreaterThanOrEqual(4)
  })

  it.each(blocks.filter((b) => b.lang === 'json' && b.norun === null).map((b) => [where(b), b] as const))(
    '%s is a config.json the config schema accepts',
    (_, b) => {
      const parsed = Config.safeParse(JSON.parse(b.code))
      expect(parsed.error?.issues ?? []).toEqual([])
    },
  )

  it.each(runnable.map((b) => [where(b), b] as const))(
    '%s runs as written',
    async (_, b) => {
      const dir = workspaceOf(b.doc)
      if (b.lang === 'sh') {
        const result = await run('bash', ['-euo', 'pipefail', '-c', b.code], dir)
        expect(result.stderr).not.toMatch(/command not found|No such file/)
        expect(result.code, result.stderr).toBe(0)
        return
      }
      // ts: compiled with tsc --strict against what the doc's sh blocks generated, then run. Library
      // declarations (@types/node, the generated console-api.d.ts) are used, not checked themselves
      // (--skipLibCheck, as \`tsc --init\` sets it for a reader): 2.8 times less CPU. The recipes run
      // under Node: its lib and @types/node, not the DOM's 39,000 lines as well (a sixth less CPU,
      // and a browser-only global in a recipe fails here).
      writeFileSync(join(dir, `block-${b.line}.ts`), b.code)
      const tsc = await run(
        join(repoRoot, 'node_modules', '.bin', 'tsc'),
        [
          '--strict',
          '--skipLibCheck',
          '--target',
          'es2022',
          '--lib',
          'es2022',
          '--module',
          'esnext',
          '--moduleResolution',
          'bundler',
          '--types',
          'node',
          '--outDir',
          'out',
          `block-${b.line}.ts`,
        ],
        dir,
      )
      expect(tsc.stdout + tsc.stderr).toBe('')
      expect(tsc.code).toBe(0)
      const node = await run(process.execPath, [join('out', `block-${b.line}.js`)], dir)
      expect(node.stderr).toBe('')
      expect(node.code).toBe(0)
      if (b.doc === 'api.md')
        expect(node.stdout).toMatch(new RegExp(`^${version.replaceAll('.', '\\.')} \\d{4}-`))
    },
    180_000,
  )

  it('the api.md recipe uses createClient<paths> from the generated types and names nothing console', () => {
    const recipe = blocks.find((b) => b.doc === 'api.md' && b.lang === 'ts')!
    expect(recipe.code).toContain("import type { paths } from './console-api'")
    expect(recipe.code).toContain('createClient<paths>(')
    expect(recipe.code).not.toMatch(/\b(const|let|var)\s+console\b/)
    expect(recipe.norun).toBeNull()
  })
})
