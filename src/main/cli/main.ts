import { processIo } from './io'
import type { CliIo } from './io'
import { serveCommand, serveUsage } from './serve'

interface Command {
  usage: string
  run(argv: string[], io: CliIo): Promise<number>
}

/** The command line: the same services as the app, without a window. */
const commands: Record<string, Command> = {
  serve: { usage: serveUsage, run: serveCommand },
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv
  const command = name ? commands[name] : undefined
  if (!command) {
    const usage = ['usage: watchdesk <command> [flags]', '', ...Object.values(commands).map((c) => c.usage)].join('\n')
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

