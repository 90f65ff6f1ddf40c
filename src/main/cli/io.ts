import { toDisposable } from '../../shared/disposable'
import type { Disposable } from '../../shared/disposable'
import { createLogger, redact } from '../log'
import type { LogLevel, Logger } from '../log'
import { inert, terminalSafe } from '../../shared/inert'

/** `--log-format` and `--verbose`, taken off the arguments before any command parses them. */
export interface CliLogging {
  format: 'json' | 'text'
  verbose: boolean
}

/** Output of the command line. Everything printed goes through redaction and `terminalSafe`
 * (no raw control character reaches the terminal) as a last guard. */
export interface CliIo {
  out(line: string): void
  err(line: string): void
  env: NodeJS.ProcessEnv
  /** Clears the terminal (chains --watch redraws in place): the one escape sequence the command
   * line writes itself, outside the guard. */
  clearScreen?(): void
  /** stdout is a terminal (chains --watch redraws in place only then). */
  isTTY?: boolean
  /** stderr is a terminal: log lines are then text, not JSON (unless --log-format json). */
  errIsTTY?: boolean
  logging?: CliLogging
  /** Calls `stop` on Ctrl-C (SIGINT) or SIGTERM; disposing the result stops listening. */
  onInterrupt?(stop: () => void): Disposable
}

export const processIo: CliIo = {
  out: (line) => void process.stdout.write(terminalSafe(redact(line)) + '\n'),
  err: (line) => void process.stderr.write(terminalSafe(redact(line)) + '\n'),
  clearScreen: () => void process.stdout.write('\x1b[H\x1b[2J'),
  env: process.env,
  isTTY: process.stdout.isTTY === true,
  errIsTTY: process.stderr.isTTY === true,
  onInterrupt(stop) {
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    return toDisposable(() => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
    })
  },
}

/** A reader that closed the pipe (`| head -1`) ends the command quietly: no EPIPE stack, and the
 * exit code of what ran so far. */
export function endQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
      throw error
    })
  }
}

/** Left-aligned text columns, right-aligned numbers: a table an operator can scan. A column is
 * numeric when every cell is a number, unless `numeric` says which columns are (for amounts that
 * arrive already formatted as text). */
export function formatTable(
  headers: string[],
  rows: (string | number | null)[][],
  numeric: boolean[] = headers.map(
    (_, i) => rows.length > 0 && rows.every((r) => r[i] === null || typeof r[i] === 'number'),
  ),
): string {
  const cells = rows.map((row) => row.map((c) => (c === null ? '—' : inert(String(c)))))
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)))
  const line = (r: string[]) =>
    r
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd()
  return [line(headers), ...cells.map(line)].join('\n')
}

/** A listing: with --json one object a line, else a table, or the sentence for an empty list. */
export function printList<T>(
  io: CliIo,
  json: boolean | undefined,
  items: readonly T[],
  table: { empty: string; headers: string[]; row: (item: T) => (string | number | null)[] },
): void {
  if (json) for (const item of items) io.out(JSON.stringify(item))
  else if (items.length === 0) io.out(table.empty)
  else io.out(formatTable(table.headers, items.map(table.row)))
}

/** Waits `ms`, or less when interrupted; true when it was interrupted. */
export function pause(ms: number, interrupted: { value: boolean; wake?: () => void }): Promise<boolean> {
  if (interrupted.value) return Promise.resolve(true)
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(interrupted.value), ms)
    interrupted.wake = () => {
      clearTimeout(timer)
      resolve(true)
    }
  })
}

const rank: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 }
const lower = (a: LogLevel, b: LogLevel): LogLevel => (rank[a] <= rank[b] ? a : b)

/** The log of a command, on stderr. JSON lines for machines (not a terminal, or --log-format
 * json); on a terminal each warning once as a short sentence, and with --verbose every line as
 * text with its fields. `minLevel` is what a service logs (info) or a command (warn). */
export function cliLogger(
  io: CliIo,
  minLevel: LogLevel = 'warn',
  write = (line: string) => io.err(line),
): Logger {
  const { format, verbose } = io.logging ?? { format: 'json', verbose: false }
  if (format === 'json') return createLogger(write, verbose ? 'debug' : minLevel)
  if (verbose) return createLogger(write, lower(minLevel, 'info'), {}, null, 'text')
  return createLogger(write, 'warn', {}, null, 'short')
}

/** A service's log held back until its addresses are printed (`release`), so the first lines an
 * operator sees are the URLs; a start that fails releases it before saying so. */
export function heldCliLogger(io: CliIo, minLevel: LogLevel = 'info'): { log: Logger; release(): void } {
  let held: string[] | null = []
  const log = cliLogger(io, minLevel, (line) => {
    if (!held) return io.err(line)
    // A start that logs without end is a bug, not a reason to grow without bound.
    if (held.length < 1000) held.push(line)
  })
  return {
    log,
    release() {
      const lines = held ?? []
      held = null
      for (const line of lines) io.err(line)
    },
  }
}

/** Takes --verbose and --log-format off the arguments (every command takes them; serve, listen
 * and relay parse their own arguments, so they must not see them). */
export function takeLoggingFlags(
  argv: string[],
  io: CliIo,
): { argv: string[]; logging: CliLogging } | { error: string } {
  const rest: string[] = []
  let verbose = false
  let format: string | null = null
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      rest.push(...argv.slice(i))
      break
    }
    if (arg === '--verbose') verbose = true
    else if (arg === '--log-format') format = argv[++i] ?? ''
    else if (arg.startsWith('--log-format=')) format = arg.slice('--log-format='.length)
    else rest.push(arg)
  }
  if (format !== null && format !== 'json' && format !== 'text')
    return { error: `--log-format takes json or text, not "${format}".` }
  return {
    argv: rest,
    logging: { format: (format as 'json' | 'text' | null) ?? (io.errIsTTY ? 'text' : 'json'), verbose },
  }
}
