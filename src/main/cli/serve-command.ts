import type { Command } from 'commander'
import type { CliContext } from './common'
import { example, parsesOwnArguments, withCommon } from './common'
import { serveCommand } from './serve'

/** `serve` is declared here for help and usage errors; its own module runs it with its arguments. */
export function registerServe(program: Command, ctx: CliContext): void {
  const serve = withCommon(program.command('serve'), { json: false })
    .description(
      'Start the console on http://127.0.0.1:7420 (prints the URL with its launch token) and the webhook listener.',
    )
    .option('--port <port>', 'console port (0: any free port)')
    .option('--listener-port <port>', 'webhook listener port, over listener.port')
    .option('--forward-to <url...>', 'also forward every verified event to this URL (repeatable)')
    .option('--demo', 'twelve local anvil nodes and sample events, secrets in memory, a temporary data dir')
    .action(parsesOwnArguments(ctx, 'serve', serveCommand))
  example(
    serve,
    'watchdesk serve --data-dir ~/watchdesk-ops',
    'WATCHDESK_TOKEN=… watchdesk serve --port 7430',
  )
}
