import { main } from './cli/main'
import { processIo } from './cli/io'

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    processIo.err(`watchdesk: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    process.exitCode = 70
  },
)
