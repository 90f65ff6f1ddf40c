import { connect } from 'node:net'
import type { Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { postSigned, useServeProcess } from '../../support/serve-process'
import { sampleRss } from '../../support/rss'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'

const secret = 'whsec_stalled_push_81c4e0b7aa'
const env = { ...process.env, WATCHDESK_WEBHOOK_SECRETS: secret }

/** A delivery whose push (`events.appended`) carries ~100 kB: its data id is that long. */
const bulky = (n: number) =>
  JSON.stringify({
    id: `evt_bulky_${n}`,
    type: 'payout.completed',
    created_at: '2026-11-20T10:00:00Z',
    data: { id: `po_${n}_${'x'.repeat(100_000)}`, amount: '12.50' },
  })

describe("serve's push stream bounded against a subscriber that never reads", () => {
  const serve = useServeProcess()
  const tempDir = useTempDir('watchdesk-stalled-push-')
  const sockets: Socket[] = []
  const samplers: { stop(): void }[] = []
  afterEach(() => {
    for (const s of sockets.splice(0)) s.destroy()
    for (const s of samplers.splice(0)) s.stop()
  })

  it('keeps serve within +40 MB of RSS while 60 MB are pushed past a subscriber that never reads, and ends that stream', async () => {
    const running = await serve(['--data-dir', tempDir()], env)
    const listener = running.listenerUrl!
    const pid = running.process.pid!
    await waitFor(async () => (await postSigned(listener, secret, bulky(-1))) === 200, 'a first delivery', {
      timeoutMs: 30_000,
    })
    let n = 0
    /** `count` deliveries of ~100 kB each, four at a time: ~100 kB pushed to every subscriber each. */
    const deliverBulky = async (count: number) => {
      const end = n + count
      const statuses: number[] = []
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (n < end) statuses.push(await postSigned(listener, secret, bulky(n++)))
        }),
      )
      expect(statuses.filter((s) => s !== 200)).toEqual([])
    }
    // The same traffic first without the stalled page, so that what the heap grows to for it is in
    // the baseline (150 deliveries, 15 MB: the growth past the stalled page then was 10.9 MB, 15.0
    // after 300; one run each, load 31–33).
    await deliverBulky(150)

    // A page that opens its push stream and then never reads a byte (a frozen tab).
    const { port, hostname } = new URL(running.consoleUrl)
    const stalled = connect(Number(port), hostname)
    sockets.push(stalled)
    stalled.on('error', () => {})
    stalled.pause()
    stalled.write(
      `GET /api/push HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${running.token}\r\n\r\n`,
    )
    await new Promise((resolve) => stalled.once('connect', resolve))
    const rss = sampleRss(pid, 100)
    samplers.push(rss)
    // ~60 MB pushed past it: 1.5 times the bound, which a stream that kept what it could not send
    // would pass (100 MB proved nothing more).
    await deliverBulky(600)
    expect(rss.peak() - rss.start).toBeLessThan(40)

    // Reading now, the page finds its stream ended (it reconnects and reloads), well short of all
    // that was pushed.
    let received = 0
    stalled.on('data', (d: Buffer) => (received += d.length))
    const ended = new Promise((resolve) => stalled.once('close', resolve))
    stalled.resume()
    await waitFor(
      () => stalled.destroyed || stalled.readableEnded || undefined,
      'the stalled stream to end',
      {
        timeoutMs: 30_000,
      },
    )
    await ended
    expect(received).toBeLessThan(30 * 1024 * 1024)
  }, 240_000)
})
