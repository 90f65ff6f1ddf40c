import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

/** What the built entries load at start (issue 23): the desktop app's main entry and the command
 * line load no PostgreSQL client, no SMTP client, no MCP SDK and no viem until a command that uses
 * one runs (they are imported where used, into chunks of their own); the renderer carries no viem.
 * Reads the build of `npm run build` (npm test builds first). */
const out = join(import.meta.dirname, '..', '..', '..', 'out')

/** Every file an entry reaches through static imports (`import … from "./x.js"`, `import "./x.js"`),
 * not through `import("./x.js")`, which loads only when that line runs. */
function staticClosure(entry: string): string[] {
  const seen = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    const text = readFileSync(file, 'utf8')
    for (const match of text.matchAll(
      /(?:^|[;\n}])\s*(?:import|export)\s*(?:[^'"();]*?\sfrom\s*)?["'](\.[^"']+)["']/g,
    ))
      visit(resolve(dirname(file), match[1]!))
  }
  visit(entry)
  return [...seen]
}

/** The packages a bundled file was built from: rolldown keeps each module's path in a comment. */
function packagesIn(files: string[]): Set<string> {
  const packages = new Set<string>()
  for (const file of files)
    for (const match of readFileSync(file, 'utf8').matchAll(/node_modules\/((?:@[\w.-]+\/)?[\w.-]+)\//g))
      packages.add(match[1]!)
  return packages
}

const heavy = /^(pg|pg-.+|pgpass|postgres-.+|nodemailer|viem|@modelcontextprotocol\/.+|@noble\/.+)$/

describe('what the built entries load at start', () => {
  it.each(['index.js', 'cli.js'])(
    'out/main/%s reaches no pg, nodemailer, MCP SDK or viem through static imports',
    (entry) => {
      const file = join(out, 'main', entry)
      expect(existsSync(file), 'npm run build first').toBe(true)
      const reached = staticClosure(file)
      expect(reached.length).toBeGreaterThan(1)
      expect([...packagesIn(reached)].filter((p) => heavy.test(p))).toEqual([])
    },
  )

  it('out/main/index.js (the Electron main) reaches no prom-client, OpenTelemetry or commander through static imports', () => {
    // Issue 33.4: the window opens before the back end (and its metrics libraries) is loaded; the
    // command line's parser is the command line's alone.
    const reached = [...packagesIn(staticClosure(join(out, 'main', 'index.js')))]
    expect(reached.filter((p) => /^(prom-client|@opentelemetry\/.+|commander)$/.test(p))).toEqual([])
  })

  it('the back end the Electron main imports reaches no prom-client or OpenTelemetry through static imports (they load with the metrics)', () => {
    // Issue 33.4: the desktop app serves no /metrics, so it never loads the metrics libraries;
    // serve loads them once its back end runs (api/metrics.ts, imported by backend.ts on need).
    const main = readFileSync(join(out, 'main', 'index.js'), 'utf8')
    const backend = /import\("(\.\/chunks\/backend-[^"]+\.js)"\)/.exec(main)?.[1]
    expect(backend, 'the Electron main imports the back end dynamically').toBeDefined()
    const reached = staticClosure(join(out, 'main', backend!))
    // The back end's own capabilities are reached (the detector sees the chunks it imports).
    expect(reached.length).toBeGreaterThan(10)
    expect([...packagesIn(reached)].filter((p) => /^(prom-client|@opentelemetry\/.+)$/.test(p))).toEqual([])
  })

  it('keeps the heavy clients in chunks that a dynamic import loads', () => {
    const chunks = readdirSync(join(out, 'main', 'chunks')).filter((f) => f.endsWith('.js'))
    const all = packagesIn(chunks.map((f) => join(out, 'main', 'chunks', f)))
    // The detector sees them where they are: a test that could never fail would prove nothing.
    expect([...all]).toEqual(
      expect.arrayContaining(['pg', 'nodemailer', '@modelcontextprotocol/sdk', 'prom-client']),
    )
  })

  it("takes node:http through require(), not Node's ES-module face of it, in every file of ours the command line reaches", () => {
    // That face reads every export once, and three are getters that load Node's bundled undici
    // (about 75 ms of CPU on each start of serve, listen, chains …): electron.vite.config.ts points
    // our imports of node:http at a module that require()s it.
    const files = readdirSync(join(out, 'main', 'chunks'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => join(out, 'main', 'chunks', f))
      .concat(join(out, 'main', 'cli.js'), join(out, 'main', 'index.js'))
    const text = (f: string) => readFileSync(f, 'utf8')
    const esmHttp = /^import [^;]*? from "node:http";/m
    const ours = files.filter((f) => !text(f).includes('node_modules/'))
    // The detector sees what it looks for: the module that require()s node:http, and our files.
    expect(files.filter((f) => text(f).includes('("node:http")')).length).toBeGreaterThan(0)
    expect(ours.length).toBeGreaterThan(10)
    expect(ours.filter((f) => esmHttp.test(text(f))).map((f) => f.split('/').pop())).toEqual([])
  })

  it('the renderer bundle carries no viem (its chain definitions hold the Multicall3 address)', () => {
    const assets = join(out, 'renderer', 'assets')
    const scripts = readdirSync(assets).filter((f) => f.endsWith('.js'))
    expect(scripts.length).toBeGreaterThan(0)
    for (const script of scripts)
      expect(readFileSync(join(assets, script), 'utf8')).not.toContain(
        'ca11bde05977b3631167028862be2a173976ca11',
      )
  })

  it('ships the renderer minified: its scripts weigh 600 kB or less in all (951 kB unminified)', () => {
    const assets = join(out, 'renderer', 'assets')
    const scripts = readdirSync(assets).filter((f) => f.endsWith('.js'))
    const bytes = scripts.reduce((sum, f) => sum + statSync(join(assets, f)).size, 0)
    expect(bytes).toBeGreaterThan(0)
    expect(bytes).toBeLessThanOrEqual(600 * 1024)
  })
})
