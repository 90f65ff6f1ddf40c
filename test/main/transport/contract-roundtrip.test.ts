import { beforeAll, describe, expect, it } from 'vitest'
import { ipcChannel, methodNames } from '../../../src/shared/contract'
import { bindIpc, isOwnRenderer } from '../../../src/main/transport/ipc'
import { silentLogger } from '../../../src/main/log'
import { createIpcStandIn, ownFrame } from '../../support/ipc-standin'
import { callApi, useTestConsole } from '../../support/console'
import { useTempDir } from '../../support/temp'
import type { RunningConsole } from '../../../src/main/serve'

const indexUrl = 'file:///opt/watchdesk/resources/app.asar/out/renderer/index.html'

/** The IPC side as the desktop shell binds it: trusting only the app's own index.html. */
function bindOwnRenderer(running: RunningConsole) {
  const ipc = createIpcStandIn()
  bindIpc({
    ipcMain: ipc.ipcMain,
    handlers: running.backend.handlers,
    isTrustedSender: isOwnRenderer(indexUrl),
    log: silentLogger,
  })
  return ipc
}

describe('one contract over both transports', () => {
  const tempDir = useTempDir('watchdesk-test-', { per: 'file' })
  // One console for the file: the tests read (and one publishes a push to its own subscriber);
  // each binds its own IPC stand-in to the console's handlers.
  const startConsole = useTestConsole({ per: 'file' })
  let running: RunningConsole
  beforeAll(async () => {
    running = await startConsole({ dataDir: tempDir() })
  })

  it('answers the same method with the same result over IPC and over HTTP', async () => {
    const ipc = bindOwnRenderer(running)

    const overIpc = await ipc.invoke(ipcChannel('settings.get'), ownFrame(indexUrl), {})
    const overHttp = await callApi(running, 'settings.get', {})

    expect(overHttp.status).toBe(200)
    expect(overIpc).toEqual(overHttp.json)
    expect(overHttp.json).toMatchObject({ ok: true, value: { dataDir: running.backend.context.dataDir } })
  })

  it('registers one IPC handler per contract method and nothing else', async () => {
    const ipc = createIpcStandIn()
    bindIpc({
      ipcMain: ipc.ipcMain,
      handlers: running.backend.handlers,
      isTrustedSender: () => true,
      log: silentLogger,
    })
    expect(ipc.channels().sort()).toEqual(methodNames.map(ipcChannel).sort())
  })

  it('rejects an invalid request with the same bad_request on both transports', async () => {
    const ipc = bindOwnRenderer(running)

    const overIpc = (await ipc.invoke(ipcChannel('app.health'), ownFrame(indexUrl), {
      unexpected: true,
    })) as any
    const overHttp = await callApi(running, 'app.health', { unexpected: true })

    expect(overHttp.status).toBe(400)
    expect(overIpc.error.code).toBe('bad_request')
    expect(overIpc).toEqual(overHttp.json)
    expect(overIpc.error.message).toMatch(/Invalid request for app\.health/)
  })

  it('answers an unknown method over HTTP with 404 and a sentence', async () => {
    const answer = await callApi(running, 'wallets.transferEverything', {})
    expect(answer.status).toBe(404)
    expect(answer.json.error.message).toMatch(/no API method named "wallets\.transferEverything"/)
  })

  it('refuses IPC from an iframe and from a page that is not the app', async () => {
    const ipc = bindOwnRenderer(running)

    const fromIframe = await ipc.invoke(ipcChannel('app.health'), { url: indexUrl, parent: {} }, {})
    const fromElsewhere = await ipc.invoke(
      ipcChannel('app.health'),
      ownFrame('https://evil.example/index.html'),
      {},
    )
    const fromNoFrame = await ipc.invoke(ipcChannel('app.health'), null, {})
    const fromOwnPage = await ipc.invoke(ipcChannel('app.health'), ownFrame(`${indexUrl}#/events`), {})

    for (const refused of [fromIframe, fromElsewhere, fromNoFrame]) {
      expect(refused).toMatchObject({ ok: false, error: { code: 'forbidden' } })
    }
    expect(fromOwnPage).toMatchObject({ ok: true, value: { status: 'ok' } })
  })

  it('delivers a push to a server-sent-events subscriber after its first heartbeat', async () => {
    const response = await fetch(`${running.url}/api/push`, {
      headers: { authorization: `Bearer ${running.token}` },
    })
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/)
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    let text = ''
    const nextFrame = async () => {
      while (!text.includes('\n\n')) text += (await reader.read()).value
      const end = text.indexOf('\n\n')
      const frame = text.slice(0, end)
      text = text.slice(end + 2)
      return frame
    }
    expect(await nextFrame()).toBe(': connected')
    const beat = JSON.parse((await nextFrame()).replace(/^data: /, ''))
    expect(beat.topic).toBe('app.heartbeat')
    running.backend.context.push.publish('payments.changed', { at: 1234 })
    let frame = await nextFrame()
    while (frame.includes('app.heartbeat')) frame = await nextFrame()
    await reader.cancel()
    expect(JSON.parse(frame.replace(/^data: /, ''))).toEqual({
      topic: 'payments.changed',
      payload: { at: 1234 },
    })
  })
})
