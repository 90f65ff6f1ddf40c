import { resolveDataDir } from '../config'
import type { Logger } from '../log'
import { installProcessGuard, startConsole } from '../serve'
import { demoSecrets, startDemo } from '../demo'
import { createKeytarStore, withEnvironmentSecrets } from '../secrets'
import { intFlag, parseCommandArgs } from './args'
import { heldCliLogger } from './io'
import type { CliIo } from './io'
import { err } from '../../shared/result'
import type { Result } from '../../shared/result'

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
  if (!args.ok) return fail(io, args.error.message, exitUsage)
  const port = portFlag(args.value.values.port, 'port')
  const listenerPort = portFlag(args.value.values['listener-port'], 'listener-port')
  if (!port.ok) return fail(io, port.error.message, exitUsage)
  if (!listenerPort.ok) return fail(io, listenerPort.error.message, exitUsage)
  // The URLs are the first lines; what was logged while starting follows them.
  const { log, release } = heldCliLogger(io)
  // From here on an unexpected error is logged with its context and serving goes on; a start that
  // fails ends the process (exit 3), so there is never a listener without its console.
  const guard = installProcessGuard(log)
  try {
    return await serve(args.value.values, port.value, listenerPort.value, io, log, release)
  } catch (error) {
    log.error('serve could not start', { error })
    release()
    return fail(io, `could not start (${(error as Error).message}); the log above has the details.`)
  } finally {
    guard.dispose()
  }
}

async function serve(
  values: Record<string, unknown>,
  port: number | undefined,
  listenerPort: number | undefined,
  io: CliIo,
  log: Logger,
  release: () => void,
): Promise<number> {
  const dataDirFlag = values['data-dir'] as string | undefined
  const configFlag = values.config as string | undefined
  // --demo: twelve local nodes, a temporary data dir (unless one is given), secrets in memory.
  const demo = values.demo ? await startDemo({ dataDir: dataDirFlag, configFile: configFlag }) : null
  if (demo && !demo.ok) {
    release()
    return fail(io, demo.error.message)
  }
  const running = await startConsole({
    dataDir: demo ? demo.value.dataDir : resolveDataDir(dataDirFlag, io.env),
    configFile: demo ? demo.value.configFile : configFlag,
    port,
    listenerPort,
    forwardTo: ((values['forward-to'] as string[] | undefined) ?? []).map((url) => ({ url })),
    env: io.env,
    log,
    ...(demo
      ? {
          secrets: demoSecrets(demo.value.secrets, withEnvironmentSecrets(createKeytarStore(), io.env)),
          demo: true,
        }
      : {}),
  })
  if (!running.ok) {
    await demo?.value.stop()
    release()
    return fail(io, running.error.message)
  }
  const { backend } = running.value
  // Listening for the stop signals before the console line is printed: whoever reads that line may
  // signal at once.
  const stopped = new Promise<void>((resolveStop) => {
    const stop = () => resolveStop()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  const listener = backend.services.webhooks.address()
  if (demo && listener.url) await demo.value.sendEvents(listener.url, backend.context.log)
  // The addresses first; then the demo's nodes, and what was logged while starting.
  io.out(`watchdesk ${backend.context.version} serving ${backend.context.dataDir}`)
  io.out(`console:  ${running.value.launchUrl}`)
  if (demo)
    io.out(
      `demo: ${demo.value.nodes.length} local anvil nodes (pids ${demo.value.nodes.map((n) => n.pid).join(', ')})`,
    )
  if (demo && !listener.url)
    io.err('demo: the webhook listener is not running, so no sample events are sent.')
  // The listener's line ends the start (test/support/serve-process.ts waits for it).
  if (listener.url) io.out(`webhooks: ${listener.url}/webhooks`)
  else
    io.err(
      `webhooks: not listening, so no webhook is received (the console, chains, wallets and stored events work). ${listener.problem?.message ?? ''}`.trim(),
    )
  release()
  await stopped
  io.err('stopping…')
  // A second signal, or a stop that hangs, ends the process at once; the lock is released on exit.
  const force = () => process.exit(0)
  process.once('SIGINT', force)
  process.once('SIGTERM', force)
  setTimeout(force, 10_000).unref()
  await running.value.close()
  await demo?.value.stop()
  return 0
}

const exitUsage = 2
const exitCouldNotRun = 3

/** One sentence, no stack; the exit code says which kind (2 usage, 3 could not run). Whatever
 * half-started despite the clean-up (a listener, a timer) cannot keep the process up: the entry
 * (src/main/cli.ts) ends a process whose command failed. */
function fail(io: CliIo, message: string, code = exitCouldNotRun): number {
  io.err(`watchdesk serve: ${message}`)
  return code
}

function portFlag(value: unknown, name: string): Result<number | undefined> {
  const n = intFlag(value, name)
  if (!n.ok || n.value === undefined || n.value <= 65_535) return n
  return err('bad_request', `--${name} takes a port number from 0 to 65535, not ${n.value}.`)
}
