import { main } from './cli/main'
import { endQuietlyOnClosedPipe, processIo } from './cli/io'
import { exitCodes } from './cli/exit'

endQuietlyOnClosedPipe()
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    // A bug, not an operator's mistake: the stack helps whoever reports it.
    processIo.err(`watchdesk: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    process.exitCode = exitCodes.cannotRun
  },
)
