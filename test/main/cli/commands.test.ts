import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { Command, Help } from 'commander'
import { describe, expect, it, vi } from 'vitest'
import { commandTable, commandToLoad, declareCommands } from '../../../src/main/cli/commands'
import type { CliContext } from '../../../src/main/cli/common'
import { main, programWithoutCommands } from '../../../src/main/cli/main'
import type { CliIo } from '../../../src/main/cli/io'

/** Issue 33.4: the command line declares its commands from one table and imports a command's
 * module only when that command runs or shows its help. */

function captureIo(): CliIo & { text: () => string } {
  const lines: string[] = []
  return {
    out: (line: string) => lines.push(line),
    err: (line: string) => lines.push(line),
    env: {},
    text: () => lines.join('\n'),
  }
}

function contextOf(io: CliIo): CliContext {
  return { io, deps: {}, argv: [], exit: () => {} }
}

async function helpWith(wanted: string | 'all' | null): Promise<string> {
  const ctx = contextOf(captureIo())
  const program = programWithoutCommands(ctx)
  await declareCommands(program, ctx, wanted)
  return program.helpInformation()
}

describe('commands declared from a table', () => {
  it("lists every command a module declares, with the module's own name, options and arguments", async () => {
    const helper = new Help()
    const declaredByModules: string[] = []
    for (const entry of commandTable) {
      const program = new Command('watchdesk')
      ;(await entry.load())(program, contextOf(captureIo()))
      const command = program.commands.find((c) => c.name() === entry.name)
      expect(command, `${entry.name}: its module declares no such command`).toBeDefined()
      expect(helper.subcommandTerm(command!), entry.name).toBe(entry.term)
      declaredByModules.push(...program.commands.map((c) => c.name()))
    }
    // A command a module declares but the table does not name would be missing from --help.
    expect([...new Set(declaredByModules)].sort()).toEqual(commandTable.map((e) => e.name).sort())
  })

  it('every command takes --data-dir and --config, itself or from the command it belongs to (DESIGN.md)', async () => {
    // store copy names its two stores with --from and --to: a data dir would be a third.
    const namesItsStores = new Set(['store copy'])
    const without: string[] = []
    const walk = (command: Command, path: string[], inherited: string[]) => {
      const flags = [...inherited, ...command.options.map((o) => o.long!)]
      const name = path.join(' ')
      if (command.commands.length === 0 && !namesItsStores.has(name))
        for (const flag of ['--data-dir', '--config'])
          if (!flags.includes(flag)) without.push(`${name} ${flag}`)
      for (const sub of command.commands) walk(sub, [...path, sub.name()], flags)
    }
    for (const entry of commandTable) {
      const program = new Command('watchdesk')
      ;(await entry.load())(program, contextOf(captureIo()))
      for (const command of program.commands.filter((c) => c.name() === entry.name))
        walk(command, [entry.name], [])
    }
    expect(without).toEqual([])
  })

  it('completion and openapi take --data-dir and --config and print the same as without them', async () => {
    for (const args of [
      ['completion', 'bash'],
      ['openapi', 'console'],
    ]) {
      const plain = captureIo()
      expect(await main(args, plain), args.join(' ')).toBe(0)
      const given = captureIo()
      const extra = ['--data-dir', '/nonexistent/watchdesk-data', '--config', '/nonexistent/config.json']
      expect(await main([...args, ...extra], given), `${args.join(' ')}: ${given.text()}`).toBe(0)
      expect(given.text()).toBe(plain.text())
    }
  })

  it('prints the same top-level help from the table alone as with every module loaded', async () => {
    const light = await helpWith(null)
    expect(light).toContain('send-test-event [options] <type>')
    expect(light).toMatch(/restore \[options\] <file> +restore a backup into an empty data dir/)
    expect(await helpWith('all')).toBe(light)
    // One command loaded (backup.ts declares two): the list keeps the table's order.
    expect(await helpWith('restore')).toBe(light)
  })

  it('finds the command to load after global flags, and behind `help`', () => {
    expect(commandToLoad([])).toBeNull()
    expect(commandToLoad(['--help'])).toBeNull()
    expect(commandToLoad(['--verbose', 'events', '--limit', '3'])).toBe('events')
    expect(commandToLoad(['help', 'chains'])).toBe('chains')
    expect(commandToLoad(['evnts'])).toBeNull()
    expect(commandToLoad(['completion', 'bash'])).toBe('all')
  })

  it("answers `help <command>` with that command's own help and exit 0, and an unknown command with a suggestion", async () => {
    const help = captureIo()
    expect(await main(['help', 'chains'], help)).toBe(0)
    expect(help.text()).toContain('One round of checks over all twelve networks')
    expect(await main(['help'], captureIo())).toBe(0)
    // A bare `watchdesk` shows the help for a usage error.
    expect(await main([], captureIo())).toBe(2)
    const typo = captureIo()
    expect(await main(['evnts'], typo)).toBe(2)
    expect(typo.text()).toContain('(Did you mean events?)')
  })
})

/** The built command line: what `watchdesk --help`, `events --help` and `chains --help` load. */
const out = join(import.meta.dirname, '..', '..', '..', 'out', 'main')

/** The files a built file reaches through static imports (not `import("…")`). */
function staticClosure(entry: string): string[] {
  const seen = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    for (const match of readFileSync(file, 'utf8').matchAll(
      /(?:^|[;\n}])\s*(?:import|export)\s*(?:[^'"();]*?\sfrom\s*)?["'](\.[^"']+)["']/g,
    ))
      visit(resolve(dirname(file), match[1]!))
  }
  visit(entry)
  return [...seen]
}

/** Bundled packages (rolldown keeps each module's path in a comment) and external ones (bare imports). */
function packagesReached(entry: string): string[] {
  const packages = new Set<string>()
  for (const file of staticClosure(entry)) {
    const text = readFileSync(file, 'utf8')
    for (const match of text.matchAll(/node_modules\/((?:@[\w.-]+\/)?[\w.-]+)\//g)) packages.add(match[1]!)
    for (const match of text.matchAll(/\bfrom\s*["']((?:@[\w.-]+\/)?[\w.-]+)["']/g)) packages.add(match[1]!)
  }
  return [...packages].sort()
}

/** Our own modules a chunk reaches through static imports (rolldown heads each with its path):
 * the capability folders under src/main, and the top-level files there. */
function capabilitiesReached(entry: string): string[] {
  const reached = new Set<string>()
  for (const file of staticClosure(entry))
    for (const match of readFileSync(file, 'utf8').matchAll(/^\/\/ src\/main\/([\w.-]+)/gm))
      reached.add(match[1]!)
  return [...reached].sort()
}

/** Node's built-in modules a chunk reaches through static imports, ES or bundled require(). */
function builtinsReached(entry: string): string[] {
  const reached = new Set<string>()
  for (const file of staticClosure(entry))
    for (const match of readFileSync(file, 'utf8').matchAll(
      /(?:\bfrom\s*|__require\()["']node:([\w/]+)["']|__require\(["'](https?|tls|net)["']\)/g,
    ))
      reached.add(match[1] ?? match[2]!)
  return [...reached].sort()
}

/** The chunk out/main/cli.js imports for a command's declaration: `import("./chunks/events-….js")`. */
function declarationChunk(name: string): string {
  const cli = readFileSync(join(out, 'cli.js'), 'utf8')
  const match = new RegExp(`import\\(["']\\./(chunks/${name}-[\\w-]+\\.js)["']\\)`).exec(cli)
  expect(match, `out/main/cli.js imports no chunk for ${name}`).not.toBeNull()
  return join(out, match![1]!)
}

describe('what the built command line loads before a command runs', () => {
  it('out/main/cli.js reaches commander and nothing else of node_modules (no zod, SQLite, prom-client)', () => {
    const cli = join(out, 'cli.js')
    expect(existsSync(cli), 'npm run build first').toBe(true)
    expect(packagesReached(cli)).toEqual(['commander'])
  })

  it.each(['events', 'chains'])('the declaration of `%s` (its --help) reaches only commander', (name) => {
    expect(packagesReached(declarationChunk(name))).toEqual(['commander'])
  })

  it('`events` reads the console database without loading the other capabilities (the relay command only for --store)', () => {
    const events = readFileSync(declarationChunk('events'), 'utf8')
    const runChunk = /import\(["']\.\/(events-run-[\w-]+\.js)["']\)/.exec(events)
    expect(runChunk).not.toBeNull()
    const reached = capabilitiesReached(join(out, 'chunks', runChunk![1]!))
    // The detector sees what it looks for: the events store is the webhooks capability's.
    expect(reached).toEqual(expect.arrayContaining(['db', 'webhooks']))
    for (const other of ['contributions.ts', 'chains', 'alerts', 'payments', 'forward', 'relay', 'sources'])
      expect(reached, `events reaches src/main/${other} through static imports`).not.toContain(other)
  })

  it('`events` and `listen` load no TLS stack at start (node:https, about 40 ms of CPU, only for TLS or an https peer)', () => {
    const events = readFileSync(declarationChunk('events'), 'utf8')
    const runChunk = /import\(["']\.\/(events-run-[\w-]+\.js)["']\)/.exec(events)
    expect(runChunk).not.toBeNull()
    for (const entry of [join(out, 'chunks', runChunk![1]!), declarationChunk('listen')]) {
      const reached = builtinsReached(entry)
      // The detector sees what it looks for: both open SQLite files through node:fs and node:path.
      expect(reached, entry).toContain('fs')
      expect(reached, entry).not.toContain('https')
      expect(reached, entry).not.toContain('tls')
    }
  })

  it('the detector sees the back end where a command runs (a test that could never fail proves nothing)', () => {
    const run = readFileSync(join(out, 'cli.js'), 'utf8')
    expect(run).toMatch(/import\(["']\.\/chunks\/events-[\w-]+\.js["']\)/)
    const events = readFileSync(declarationChunk('events'), 'utf8')
    const runChunk = /import\(["']\.\/(events-run-[\w-]+\.js)["']\)/.exec(events)
    expect(runChunk).not.toBeNull()
    expect(packagesReached(join(out, 'chunks', runChunk![1]!))).toEqual(
      expect.arrayContaining(['better-sqlite3', 'zod']),
    )
  })
})

describe('what every start builds at module load', () => {
  it("makes a config section's default when a config lacks the section, a fresh one each time (not ten parses at load)", async () => {
    const { Config } = await import('../../../src/shared/config')
    const first = Config.parse({})
    const second = Config.parse({})
    expect(second).toEqual(first)
    // Made per parse: a default computed once at load was one object every config shared.
    expect(second.retention.events).not.toBe(first.retention.events)
    expect(second.listener.authorizationAnswer).not.toBe(first.listener.authorizationAnswer)
    first.retention.events.days = 1
    expect(Config.parse({}).retention.events.days).toBe(90)
  })

  it('makes no Intl number format until an amount needs one (the catalogue every command loads, the wallets table)', async () => {
    // A process's first Intl.NumberFormat loads ICU's number data, about 25 ms of CPU: every
    // command and every serve/listen/relay start paid it when these modules made theirs at load.
    vi.resetModules()
    const made = vi.spyOn(Intl, 'NumberFormat')
    try {
      const events = await import('../../../src/shared/events')
      const wallets = await import('../../../src/shared/payments/wallets')
      expect(made).not.toHaveBeenCalled()
      // A plain amount needs none either; one past 2^26 is Intl's, made once and kept.
      expect(events.formatAmount(1234.5)).toBe('1,234.5')
      expect(made).not.toHaveBeenCalled()
      expect(events.formatAmount(123_456_789.5)).toBe('123,456,789.5')
      expect(events.formatAmount(987_654_321)).toBe('987,654,321')
      expect(made).toHaveBeenCalledTimes(1)
      expect(wallets.formatCell('amount', 1500.25)).toMatchObject({ text: '1,500.25', kind: 'amount' })
      expect(made).toHaveBeenCalledTimes(2)
    } finally {
      made.mockRestore()
    }
  })
})
