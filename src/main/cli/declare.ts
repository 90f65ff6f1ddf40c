import { InvalidArgumentError, Option } from 'commander'
import type { Command } from 'commander'
import type { SecretStore } from '../secrets'
import type { ExitCode } from './exit'
import type { CliIo } from './io'

/* What a command's declaration needs (its flags, help and examples): commander and nothing of
 * the back end, so `watchdesk <command> --help` loads no more than this (issue 33.4). What its
 * action needs is in ./common.ts and the command's own modules, imported when it runs. */

/** What commands can be handed instead of the real keychain and terminal (tests). */
export interface CliDeps {
  secrets?: SecretStore
  /** Reads a secret from stdin (piped) or a prompt with the echo off. */
  readSecret?: (prompt: string) => Promise<string>
  /** Asks a yes/no question; null when nobody can answer (no terminal, nothing on stdin). */
  confirm?: (question: string) => Promise<boolean | null>
}

/** Handed to every command's `register`: where to print, and where the exit code goes. */
export interface CliContext {
  io: CliIo
  deps: CliDeps
  /** The arguments as given (serve passes its own through). */
  argv: string[]
  exit(code: ExitCode | number): void
}

export interface CommonOptions {
  dataDir?: string
  config?: string
  json?: boolean
}

/** `--data-dir`, `--config` (and `--json` on reads) on every command (DESIGN.md). */
export function withCommon(command: Command, { json = true }: { json?: boolean } = {}): Command {
  command
    .addOption(new Option('--data-dir <dir>', 'data dir (default: WATCHDESK_DATA_DIR or the OS convention)'))
    .addOption(new Option('--config <file>', "a config file laid over the data dir's config.json"))
  if (json) command.option('--json', 'machine-readable output (JSON)', false)
  return command
}

export function example(command: Command, ...lines: string[]): Command {
  return command.addHelpText(
    'after',
    `\nExample${lines.length > 1 ? 's' : ''}:\n${lines.map((l) => `  $ ${l}`).join('\n')}`,
  )
}

/** The action of a command that parses its own arguments (`listen`, `serve`, `events replay`):
 * commander declares it for help and usage errors, `run` reads what follows its name. */
export function parsesOwnArguments(
  ctx: CliContext,
  name: string,
  run: (args: string[], io: CliIo) => Promise<ExitCode | number>,
): () => Promise<void> {
  return async () => {
    const at = ctx.argv.indexOf(name)
    ctx.exit(await run(ctx.argv.slice(at + 1), ctx.io))
  }
}

export function positiveInt(name: string, min = 1) {
  return (value: string): number => {
    const n = Number(value)
    if (!Number.isInteger(n) || n < min) {
      // commander turns this into "error: option '--x' argument 'y' is invalid. …" with exit 2.
      throw new InvalidArgumentError(`--${name} takes a whole number of at least ${min}, not "${value}".`)
    }
    return n
  }
}
