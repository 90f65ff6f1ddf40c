import type { ApiError } from '../../shared/result'
import type { CliIo } from './io'

/** The exit codes of every command (docs/cli.md): scripts branch on these, so they mean the same
 * thing everywhere. */
export const exitCodes = {
  /** All good. */
  ok: 0,
  /** The check found a problem (a chain down, no chain monitored, the listener did not store the
   * event), the service refused, or the operator answered no. */
  problem: 1,
  /** Usage: an unknown command or flag, a missing or extra argument, an invalid config value. */
  usage: 2,
  /** Could not run: the keychain, the data dir, the network, or nothing configured to run with. */
  cannotRun: 3,
} as const
export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes]

/** The one mapping of an error to an exit code. */
export function exitCodeFor(error: Pick<ApiError, 'code'>): ExitCode {
  switch (error.code) {
    case 'keychain_unavailable':
    case 'unavailable':
    case 'internal':
      return exitCodes.cannotRun
    default:
      return exitCodes.problem
  }
}

/** Prints `watchdesk <command>: <sentence>` on stderr and gives the exit code for it. */
export function failure(io: CliIo, command: string, message: string, code: ExitCode): ExitCode {
  io.err(`watchdesk ${command}: ${message}`)
  return code
}

export function failWith(io: CliIo, command: string, error: ApiError): ExitCode {
  return failure(io, command, error.message, exitCodeFor(error))
}
