import { resolveDataDir } from '../config'
import { startConsole } from '../serve'
import { startDemo } from '../demo'
import { intFlag, parseCommandArgs } from './args'
import type { CliIo } from './io'

export const serveUsage = `watchdesk serve [--data-dir DIR] [--config FILE] [--port 7420] [--listener-port 7421] [--forward-to URL]… [--demo]
  Starts the console on http://127.0.0.1:7420 and prints the URL with its launch token.
  --demo: twelve local anvil nodes and sample events, secrets in memory, a temporary data dir.`

export async function serveCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseCommandArgs(argv, {
    port: { type: 'string' },
    'listener-port': { type: 'string' },
    demo: { type: 'boolean', default: false },
    'forward-to': { type: 'string', multiple: true },
  })
  if (!args.ok) return fail(io, args.error.message)
  const port = intFlag(args.value.values.port, 'port')
  const listenerPort = intFlag(args.value.values['listener-port'], 'listener-port')
  if (!port.ok) return fail(io, port.error.message)
  if (!listenerPort.ok) return fail(io, listenerPort.error.message)
  const dataDirFlag = args.value.values['data-dir'] as string | undefined
  const configFlag = args.value.values.config as string | undefined
  // --demo: twelve local nodes, a temporary data dir (unless one is given), secrets in memory.
  const demo = args.value.values.demo
    ? await startDemo({ dataDir: dataDirFlag, configFile: configFlag })
    : null
  if (demo && !demo.ok) return fail(io, demo.error.message)
  const running = await startConsole({
    dataDir: demo ? demo.value.dataDir : resolveDataDir(dataDirFlag, io.env),
    configFile: demo ? demo.value.configFile : configFlag,
    port: port.value,
    listenerPort: listenerPort.value,
    forwardTo: ((args.value.values['forward-to'] as string[] | undefined) ?? []).map((url) => ({ url })),
    env: io.env,
    ...(demo ? { secrets: demo.value.secrets } : {}),
  })
  if (!running.ok) {
    await demo?.value.stop()
    return fail(io, running.error.message)
  }
  const { backend } = running.value
  const listenerProblem = backend.context.urls.listenerProblem
  // Before the console line, so whoever waits for that line has already seen this one.
  if (listenerProblem)
    io.err(
      `webhooks: not listening, so no webhook is received (the console, chains, wallets and stored events work). ${listenerProblem.message}`,
    )
  if (demo) {
    io.out(
      `demo: ${demo.value.nodes.length} local anvil nodes (pids ${demo.value.nodes.map((n) => n.pid).join(', ')})`,
    )
    if (backend.context.urls.listener)
      await demo.value.sendEvents(backend.context.urls.listener, backend.context.log)
    else io.err('demo: the webhook listener is not running, so no sample events are sent.')
  }
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
  await demo?.value.stop()
  return 0
}

function fail(io: CliIo, message: string): number {
  io.err(`watchdesk serve: ${message}`)
  return 1
}
