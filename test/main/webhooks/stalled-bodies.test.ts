import { writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import type { Socket } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { postSigned, useServeProcess } from '../../support/serve-process'
import { sampleRss } from '../../support/rss'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'

const secret = 'whsec_stalled_bodies_3e7a91c0d2'
const env = { ...process.env, WATCHDESK_WEBHOOK_SECRETS: secret }

const body = (id: string) =>
  JSON.stringify({
    id,
    type: 'payout.completed',
    created_at: '2026-11-20T10:00:00Z',
    data: { id: `po_${id}`, amount: '12.50' },
  })

describe('the webhook listener bounded against stalled senders', () => {
  const serve = useServeProcess()
  const tempDir = useTempDir('watchdesk-stalled-bodies-')
  const sockets: Socket[] = []
  const samplers: { stop(): void }[] = []
  afterEach(() => {
    for (const s of sockets.splice(0)) s.destroy()
    for (const s of samplers.splice(0)) s.stop()
  })

  it('keeps its RSS within +150 MB while 400 senders hold partial bodies, and answers a signed delivery 200 meanwhile', async () => {
    const dataDir = tempDir()
    // Time-outs far longer than the test: the body budget must bound the memory, not a time-out.
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({ listener: { headersTimeoutMs: 120_000, bodyTimeoutMs: 120_000 } }),
    )
    const running = await serve(['--data-dir', dataDir], env)
    const listener = running.listenerUrl!
    const pid = running.process.pid!
    await waitFor(
      async () => (await postSigned(listener, secret, body('evt_warm'))) === 200,
      'a first delivery',
      {
        timeoutMs: 30_000,
      },
    )
    const rss = sampleRss(pid)
    samplers.push(rss)

    // 400 senders: headers announcing 1,040,000 bytes, 1,000,000 of them sent, then nothing.
    const { port, hostname } = new URL(listener)
    const partial = Buffer.alloc(1_000_000, 0x61)
    let flushed = 0
    const answers: string[] = []
    for (let i = 0; i < 400; i++) {
      const socket = connect(Number(port), hostname)
      sockets.push(socket)
      socket.on('error', () => {})
      socket.on('data', (d: Buffer) => answers.push(d.toString()))
      socket.write(
        `POST /webhooks HTTP/1.1\r\nHost: ${hostname}\r\ncontent-type: application/json\r\n` +
          `x-service-signature: t=1,v1=00\r\ncontent-length: 1040000\r\n\r\n`,
      )
      socket.write(partial, () => flushed++)
    }
    await waitFor(() => flushed === 400, 'the 400 partial bodies to be sent', { timeoutMs: 60_000 })
    // Beyond the bytes in flight it holds, the listener turned the longest-waiting bodies away.
    await waitFor(() => answers.length >= 300, 'the listener to turn stalled bodies away', {
      timeoutMs: 60_000,
      intervalMs: 100,
    })
    expect(answers.every((a) => /^HTTP\/1\.1 503 .*\r\n[^]*retry-after: \d+/i.test(a))).toBe(true)
    expect(answers[0]).toMatch(/listener\.maxBodyBytesInFlight|body bytes|retry later/)

    expect(await postSigned(listener, secret, body('evt_during_stall'))).toBe(200)
    expect(rss.peak() - rss.start).toBeLessThan(150)
  }, 180_000)
})
