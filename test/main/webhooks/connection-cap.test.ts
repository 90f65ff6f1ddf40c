import { writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import type { Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { signBody } from '../../../src/main/webhooks'
import { join } from 'node:path'
import { useRelayProcesses } from '../../support/relay-process'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { countEvents, envelope, post, secretA, useWebhookBackend } from './helpers'

describe("the webhook listener's connection cap", () => {
  const start = useWebhookBackend()
  const sockets: Socket[] = []
  afterEach(() => {
    for (const s of sockets.splice(0)) s.destroy()
  })

  it('answers 503 with Retry-After to a connection beyond listener.maxConnections, and takes deliveries again once one is freed', async () => {
    const b = await start({ config: { listener: { maxConnections: 16 } } })
    const { hostname, port } = new URL(b.webhookUrl)
    // 16 idle connections hold every place.
    let connected = 0
    for (let i = 0; i < 16; i++) {
      const s = connect(Number(port), hostname, () => connected++)
      s.on('error', () => {})
      sockets.push(s)
    }
    await waitFor(() => connected === 16, 'the 16 connections')
    const body = envelope('evt_capped')
    const headers = { 'x-service-signature': signBody(secretA, body) }
    // The 17th: answered at once, before its request is read, and closed.
    const refused = await new Promise<string>((resolve) => {
      const s = connect(Number(port), hostname)
      sockets.push(s)
      let text = ''
      s.on('data', (d: Buffer) => (text += d.toString()))
      s.on('error', () => resolve(text))
      s.on('close', () => resolve(text))
      s.write(`POST /webhooks HTTP/1.1\r\nHost: x\r\ncontent-length: ${body.length}\r\n\r\n${body}`)
    })
    expect(refused).toMatch(/^HTTP\/1\.1 503 /)
    expect(refused).toMatch(/\r\nretry-after: \d+\r\n/i)
    expect(refused).toMatch(/listener\.maxConnections/)
    expect(countEvents(b)).toBe(0)

    for (const s of sockets.splice(0)) s.destroy()
    await waitFor(async () => (await post(b.webhookUrl, body, headers)).status === 200, 'the delivery')
    expect(countEvents(b)).toBe(1)
  })

  const relays = useRelayProcesses()
  const tempDir = useTempDir('watchdesk-listener-cap-')

  it("applies listener.maxConnections from the relay's config.json to the relay's listener", async () => {
    const dataDir = tempDir()
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ listener: { maxConnections: 16 } }))
    const relay = await relays(`sqlite:${join(dataDir, 'relay.db')}`, {
      WATCHDESK_DATA_DIR: dataDir,
      WATCHDESK_WEBHOOK_SECRETS: secretA,
    }).ready
    const { hostname, port } = new URL(relay.webhooks)
    let connected = 0
    for (let i = 0; i < 16; i++) {
      const s = connect(Number(port), hostname, () => connected++)
      s.on('error', () => {})
      sockets.push(s)
    }
    await waitFor(() => connected === 16, 'the 16 connections')
    const body = envelope('evt_relay_capped')
    // Answered 503 at once, before its request is read (asked again if the reset beat the answer).
    const answer = await waitFor(async () => {
      const a = await post(relay.webhooks, body, { 'x-service-signature': signBody(secretA, body) }).catch(
        () => null,
      )
      return a ?? undefined
    }, 'an answer beyond the cap')
    expect(answer.status).toBe(503)
    expect(JSON.parse(answer.body).error).toMatch(/listener\.maxConnections/)
  })
})
