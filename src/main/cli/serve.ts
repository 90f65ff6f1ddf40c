import { resolveDataDir } from '../config'
import { startConsole } from '../serve'
import { intFlag, parseCommandArgs } from './args'
import type { CliIo } from './io'

export const serveUsage = `watchdesk serve [--data-dir DIR] [--config FILE] [--port 7420] [--listener-port 7421]
  Starts the console on http://127.0.0.1:7420 and prints the URL with its launch token.`

export async function serveCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseCommandArgs(argv, {
    port: { type: 'string' },
    'listener-port': { type: 'string' },
    demo: { type: 'boolean', default: false },
  })
  if (!args.ok) return fail(io, args.error.message)
  const port = intFlag(args.value.values.port, 'port')
  const listenerPort = intFlag(args.value.values['listener-port'], 'listener-port')
  if (!port.ok) return fail(io, port.error.message)
  if (!listenerPort.ok) return fail(io, listenerPort.error.message)
  const running = await startConsole({
    dataDir: resolveDataDir(args.value.values['data-dir'] as string | undefined, io.env),
    configFile: args.value.values.config as string | undefined,
    port: port.value,
    listenerPort: listenerPort.value,
    env: io.env,
  })
  if (!running.ok) return fail(io, running.error.message)
  const { backend } = running.value
  io.out(`watchdesk ${backend.context.version} serving ${backend.context.dataDir}`)
  io.out(`console:  ${running.value.launchUrl}`)
  if (backend.context.urls.listener) io.out(`webhooks: ${backend.context.urls.listener}/webhooks`)
  await new Promise<void>((resolveStop) => {
    const stop = () => resolveStop()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  io.err('stopping…')
  await running.value.close()
  return 0
}

function fail(io: CliIo, message: string): number {
  io.err(`watchdesk serve: ${message}`)
  return 1
}
