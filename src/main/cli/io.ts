import { redact } from '../log'

/** Output of the command line. Everything printed goes through redaction as a last guard. */
export interface CliIo {
  out(line: string): void
  err(line: string): void
  env: NodeJS.ProcessEnv
}

export const processIo: CliIo = {
  out: (line) => process.stdout.write(redact(line) + '\n'),
  err: (line) => process.stderr.write(redact(line) + '\n'),
  env: process.env,
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
