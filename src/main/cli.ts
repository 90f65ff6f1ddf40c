import { main } from './cli/main'
import { endQuietlyOnClosedPipe, processIo } from './cli/io'
import { exitCodes } from './cli/exit'

endQuietlyOnClosedPipe()
/** How long a failed command's process may take to end by itself before it is ended: whatever
 * half-started before the failure (a listener, a worker, a timer) must not keep it up. */
const failedCommandGraceMs = 2_000

function end(code: number): void {
  process.exitCode = code
  // Here, not in the command: a command's main() also runs inside other processes (tests).
  if (code !== 0) setTimeout(() => process.exit(code), failedCommandGraceMs).unref()
}

main(process.argv.slice(2)).then(end, (error: unknown) => {
  // A bug, not an operator's mistake: the stack helps whoever reports it.
  processIo.err(`watchdesk: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  end(exitCodes.cannotRun)
})
