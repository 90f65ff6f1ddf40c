import { processIo } from './io'
import type { CliIo } from './io'
import { serveCommand, serveUsage } from './serve'
import { chainsCommand, chainsUsage } from './chains'
import { keysCommand, keysUsage } from './keys'
import { walletsCommand, walletsUsage } from './wallets'
import { webhooksCommand, webhooksUsage } from './webhooks'
import { eventsCommand, eventsUsage } from './events'
import { sendTestEventCommand, sendTestEventUsage } from './send-test-event'
import { listenCommand, listenUsage } from './listen'

interface Command {
  usage: string
  run(argv: string[], io: CliIo): Promise<number>
}

/** The command line: the same services as the app, without a window. */
const commands: Record<string, Command> = {
  serve: { usage: serveUsage, run: serveCommand },
  listen: { usage: listenUsage, run: listenCommand },
  chains: { usage: chainsUsage, run: (argv, io) => chainsCommand(argv, io) },
  keys: { usage: keysUsage, run: (argv, io) => keysCommand(argv, io) },
  wallets: { usage: walletsUsage, run: (argv, io) => walletsCommand(argv, io) },
  webhooks: { usage: webhooksUsage, run: (argv, io) => webhooksCommand(argv, io) },
  events: { usage: eventsUsage, run: eventsCommand },
  'send-test-event': { usage: sendTestEventUsage, run: (argv, io) => sendTestEventCommand(argv, io) },
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv
  const command = name ? commands[name] : undefined
  if (!command) {
    const usage = [
      'usage: watchdesk <command> [flags]',
      '',
      ...Object.values(commands).map((c) => c.usage),
    ].join('\n')
    if (name && name !== 'help' && name !== '--help' && name !== '-h') {
      io.err(`watchdesk: unknown command "${name}".\n\n${usage}`)
      return 2
    }
    io.out(usage)
    return name ? 0 : 2
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(command.usage)
    return 0
  }
  return command.run(rest, io)
}
