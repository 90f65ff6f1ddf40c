import { redact } from '../log'

/** Output of the command line. Everything printed goes through redaction as a last guard. */
export interface CliIo {
  out(line: string): void
  err(line: string): void
  env: NodeJS.ProcessEnv
  /** stdout is a terminal (chains --watch redraws in place only then). */
  isTTY?: boolean
  /** Calls `stop` on Ctrl-C (SIGINT) or SIGTERM; returns the function that stops listening. */
  onInterrupt?(stop: () => void): () => void
}

export const processIo: CliIo = {
  out: (line) => void process.stdout.write(redact(line) + '\n'),
  err: (line) => void process.stderr.write(redact(line) + '\n'),
  env: process.env,
  isTTY: process.stdout.isTTY === true,
  onInterrupt(stop) {
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    return () => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
    }
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
  const cells = rows.map((row) => row.map((c) => (c === null ? '—' : String(c))))
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
