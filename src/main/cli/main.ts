import { Command, CommanderError, Option } from 'commander'
import { version } from '../version'
import type { CliContext, CliDeps } from './common'
import { exitCodes } from './exit'
import { processIo, takeLoggingFlags } from './io'
import type { CliIo } from './io'
import { commandToLoad, declareCommands } from './commands'

export type { CliDeps } from './common'

/** The command line: the same services as the app, without a window. Arguments are parsed by
 * commander (help, suggestions, usage errors); every command ends with one of the exit codes of
 * ./exit.ts. The program alone: its commands come from ./commands.ts (declareCommands). */
export function programWithoutCommands(ctx: CliContext): Command {
  const program = new Command('watchdesk')
    .description('Operator console for a payments API and its blockchain node access, on the command line.')
    .version(version, '-V, --version', 'print the version')
    // Taken off the arguments by main() (takeLoggingFlags); declared here for --help.
    .option('--verbose', 'every log line, as text on a terminal')
    .addOption(
      new Option(
        '--log-format <format>',
        'json: machine log lines (services); text: on a terminal (the default there)',
      ).choices(['json', 'text']),
    )
    .exitOverride()
    .showHelpAfterError(true)
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => ctx.io.out(text.replace(/\n$/, '')),
      writeErr: (text) => ctx.io.err(text.replace(/\n$/, '')),
      // commander suggests close long flags and commands; -v is too short for it to guess.
      outputError: (text, write) =>
        write(
          /unknown option '(-v|--v|-version)'/.test(text)
            ? `${text.trimEnd()}\n(Did you mean -V or --version?)\n`
            : text,
        ),
    })
    .addHelpText(
      'after',
      `
Exit codes: 0 all good · 1 the check found a problem or the service refused · 2 usage error ·
3 could not run (keychain, data dir, network). Details: docs/cli.md.

Example:
  $ watchdesk chains --json | head -1`,
    )
  return program
}

export async function main(
  givenArgv: string[],
  givenIo: CliIo = processIo,
  deps: CliDeps = {},
): Promise<number> {
  const taken = takeLoggingFlags(givenArgv, givenIo)
  if ('error' in taken) {
    givenIo.err(`watchdesk: ${taken.error}`)
    return exitCodes.usage
  }
  const { argv } = taken
  const io: CliIo = { ...givenIo, logging: givenIo.logging ?? taken.logging }
  let code: number | null = null
  const ctx: CliContext = { io, deps, argv, exit: (c) => (code = c) }
  const program = programWithoutCommands(ctx)
  await declareCommands(program, ctx, commandToLoad(argv))
  try {
    await program.parseAsync(argv, { from: 'user' })
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return exitCodes.ok
    // `watchdesk help [command]` asked for help (exit code 0); a bare `watchdesk` is help shown for
    // a usage error (exit code 1), which stays a usage error.
    if (error.code === 'commander.help' && error.exitCode === 0) return exitCodes.ok
    // No command at all, an unknown command or flag, a missing or extra argument.
    return exitCodes.usage
  }
  return code ?? exitCodes.ok
}

/** One command with its arguments (`keysCommand(['select', 'main'], io)` = `watchdesk keys select
 * main`), for tests and callers that hold a command's arguments. */
const commandOf =
  (name: string) =>
  (argv: string[], io: CliIo = processIo, deps: CliDeps = {}): Promise<number> =>
    main([name, ...argv], io, deps)
export const chainsCommand = commandOf('chains')
export const eventsCommand = commandOf('events')
export const keysCommand = commandOf('keys')
export const walletsCommand = commandOf('wallets')
export const webhooksCommand = commandOf('webhooks')
export const configCommand = commandOf('config')
export const projectUidCommand = commandOf('project-uid')
export const sendTestEventCommand = commandOf('send-test-event')
export const alertsCommand = commandOf('alerts')
export const sourcesCommand = commandOf('sources')
export const doctorCommand = commandOf('doctor')
