import { parseArgs } from 'node:util'
import type { ParseArgsConfig } from 'node:util'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'

/** node:util parsing, still used by cli/serve.ts (run through commander in serve-command.ts, which
 * declares its flags for help and usage errors). Flags every command takes (DESIGN.md). */
export const commonFlags = {
  'data-dir': { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies NonNullable<ParseArgsConfig['options']>

export type ParsedArgs = {
  values: Record<string, string | boolean | string[] | undefined>
  positionals: string[]
}

export function parseCommandArgs(
  argv: string[],
  options: NonNullable<ParseArgsConfig['options']>,
): Result<ParsedArgs> {
  try {
    const parsed = parseArgs({
      args: argv,
      options: { ...commonFlags, ...options },
      allowPositionals: true,
      strict: true,
    })
    return ok({ values: parsed.values as ParsedArgs['values'], positionals: parsed.positionals })
  } catch (error) {
    return err('bad_request', (error as Error).message)
  }
}

export function intFlag(value: unknown, name: string): Result<number | undefined> {
  if (value === undefined) return ok(undefined)
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0)
    return err('bad_request', `--${name} takes a whole number, not "${String(value)}".`)
  return ok(n)
}
