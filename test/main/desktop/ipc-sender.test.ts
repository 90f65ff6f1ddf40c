import { pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { bindIpc, isOwnRenderer } from '../../../src/main/transport/ipc'
import type { ApiHandlers } from '../../../src/main/transport/dispatch'
import { silentLogger } from '../../../src/main/log'
import type { RunningConsole } from '../../../src/main/serve'
import { ipcChannel } from '../../../src/shared/contract'
import { createIpcStandIn, ownFrame } from '../../support/ipc-standin'
import { useTestConsole } from '../../support/console'
import { useTempDir } from '../../support/temp'

/** The desktop's IPC binding as index.ts sets it up: the packaged renderer's file URL is the only
 * trusted sender (plus the dev server's origin under `npm run dev`). */
const indexUrl = pathToFileURL('/opt/watchdesk/resources/app.asar/out/renderer/index.html').href

describe('IPC sender checks', () => {
  const tempDir = useTempDir('watchdesk-test-', { per: 'file' })
  // One console for the file: each test binds its own IPC stand-in to its handlers and only asks
  // app.health.
  const startConsole = useTestConsole({ per: 'file' })
  let running: RunningConsole
  beforeAll(async () => {
    running = await startConsole({ dataDir: tempDir() })
  })

  async function bind(devServerUrl?: string) {
    const reached: string[] = []
    const handlers = new Proxy(running.backend.handlers, {
      get(target, name: string) {
        const handler = target[name as keyof ApiHandlers] as (...args: unknown[]) => unknown
        return (...args: unknown[]) => {
          reached.push(name)
          return handler(...args)
        }
      },
    })
    const ipc = createIpcStandIn()
    bindIpc({
      ipcMain: ipc.ipcMain,
      handlers,
      isTrustedSender: isOwnRenderer(indexUrl, devServerUrl),
      log: silentLogger,
    })
    const call = (frame: { url: string; parent: unknown } | null, request: unknown = {}) =>
      ipc.invoke(ipcChannel('app.health'), frame, request) as Promise<any>
    return { call, reached }
  }

  it('accepts the app’s own index.html, with or without a hash route or query', async () => {
    const { call, reached } = await bind()
    for (const url of [indexUrl, `${indexUrl}#/chains`, `${indexUrl}?x=1#/events`]) {
      expect(await call(ownFrame(url))).toMatchObject({ ok: true, value: { status: 'ok' } })
    }
    expect(reached).toEqual(['app.health', 'app.health', 'app.health'])
  })

  it('refuses an iframe, even one showing the app’s own page', async () => {
    const { call, reached } = await bind()
    const answer = await call({ url: indexUrl, parent: { url: 'https://evil.example/' } })
    expect(answer).toEqual({
      ok: false,
      error: { code: 'forbidden', message: 'This frame may not call the watchdesk API.' },
    })
    expect(reached).toEqual([])
  })

  it('refuses a foreign page, another local file and a missing frame', async () => {
    const { call, reached } = await bind()
    for (const frame of [
      ownFrame('https://evil.example/index.html'),
      ownFrame('file:///tmp/index.html'),
      ownFrame(indexUrl.replace('index.html', 'other.html')),
      ownFrame('http://127.0.0.1:5173/'),
      ownFrame('not a url'),
      null,
    ]) {
      expect((await call(frame)).error?.code, frame?.url ?? 'null frame').toBe('forbidden')
    }
    expect(reached).toEqual([])
  })

  it('trusts the dev server only by its exact origin, and only when running under npm run dev', async () => {
    const { call } = await bind('http://localhost:5173')
    expect((await call(ownFrame('http://localhost:5173/#/events'))).ok).toBe(true)
    expect((await call(ownFrame('http://localhost:5174/'))).error.code).toBe('forbidden')
    expect((await call(ownFrame('http://localhost.evil.example:5173/'))).error.code).toBe('forbidden')
  })

  it('refuses a request from the trusted page that the contract’s schema rejects', async () => {
    const { call, reached } = await bind()
    const answer = await call(ownFrame(indexUrl), { admin: true })
    expect(answer.ok).toBe(false)
    expect(answer.error.code).toBe('bad_request')
    expect(answer.error.message).toMatch(/app\.health/)
    expect(reached).toEqual([])
  })
})
