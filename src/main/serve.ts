import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { dirname, join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defaultConsolePort } from '../shared/config'
import { err, ok } from '../shared/result'
import type { Result } from '../shared/result'
import { startBackend } from './backend'
import type { Backend, BackendOptions } from './backend'
import { createConsoleServer } from './transport/http'
import { metricsTokenChecker } from './relay'
import type { Logger } from './log'

export interface ServeOptions extends Omit<BackendOptions, 'shell'> {
  port?: number
  host?: string
  /** Overrides `listener.port` from the config. */
  listenerPort?: number
  /** Fixes the token (scripts, tests); otherwise WATCHDESK_TOKEN or a fresh random one. */
  token?: string
  rendererDir?: string
}

export interface RunningConsole {
  url: string
  /** The URL to open in a browser: carries the token. Print it only to the operator's terminal. */
  launchUrl: string
  token: string
  port: number
  backend: Backend
  close(): Promise<void>
}

/** out/renderer, whether this runs from the built bundle (out/main or out/main/chunks) or, in
 * tests, from the sources. */
export function builtRendererDir(): string {
  const here = dirname(fileURLToPath(import.meta.url))
  const outAt = here.lastIndexOf(`${sep}out${sep}main`)
  return outAt >= 0
    ? join(here.slice(0, outAt), 'out', 'renderer')
    : join(here, '..', '..', 'out', 'renderer')
}

/** serve mode: the same back end as the desktop app, reached by a browser on loopback. */
export async function startConsole(options: ServeOptions): Promise<Result<RunningConsole>> {
  const env = options.env ?? process.env
  const rendererDir = options.rendererDir ?? builtRendererDir()
  if (!existsSync(join(rendererDir, 'index.html'))) {
    return err(
      'unavailable',
      `The renderer is not built (${rendererDir} has no index.html): run "npm run build" first.`,
    )
  }
  const token = options.token ?? env.WATCHDESK_TOKEN ?? randomBytes(24).toString('base64url')
  // Written here once the console listens (its one writer); the back end asks.
  let consoleUrl: string | null = null
  const started = await startBackend({
    ...options,
    shell: 'serve',
    env,
    listenerPort: options.listenerPort,
    consoleUrl: () => consoleUrl,
  })
  if (!started.ok) return started
  const backend = started.value
  const server = createConsoleServer({
    handlers: backend.handlers,
    push: backend.context.push,
    token,
    rendererDir,
    log: backend.context.log,
    metrics: backend.metrics,
    metricsToken: metricsTokenChecker(backend.context.db),
  })
  const listening = await server.listen(options.port ?? defaultConsolePort, options.host ?? '127.0.0.1')
  if (!listening.ok) {
    await backend.close()
    return listening
  }
  const { port, url } = listening.value
  consoleUrl = url
  backend.publishAddresses()
  // A desktop alert in serve mode is shown only by an open page: the alerts ask how many are open.
  const detach = backend.services.alerts.attachConsole(() => server.streams())
  return ok({
    url,
    launchUrl: `${url}/?token=${encodeURIComponent(token)}`,
    token,
    port,
    backend,
    close: async () => {
      detach.dispose()
      await server.close()
      await backend.close()
    },
  })
}

/** A process-wide net for what no caller caught: logged with its context, and the process keeps
 * serving (the listener, the console, the stored events) instead of dying on a timer's error. */
export function installProcessGuard(log: Logger): { dispose(): void } {
  const onException = (error: Error, origin: string) =>
    log.error('unexpected error; watchdesk keeps serving', { origin, error })
  const onRejection = (reason: unknown) =>
    log.error('unexpected rejected promise; watchdesk keeps serving', { error: reason })
  process.on('uncaughtException', onException)
  process.on('unhandledRejection', onRejection)
  return {
    dispose() {
      process.off('uncaughtException', onException)
      process.off('unhandledRejection', onRejection)
    },
  }
}
