import { createHmac } from 'node:crypto'
import { createServer } from 'node:http'
import type { ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { cliPath, useServeProcess } from '../../support/serve-process'
import type { ServeProcess } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'

const secret = 'whsec_alert_crash_5d1c0a9e'

/** A webhook alert channel that counts what it accepted (answered 200); while `holding`, it keeps
 * each request open without an answer, as a channel does that is slow at the instant of a crash. */
function useChannel() {
  const servers: ReturnType<typeof createServer>[] = []
  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map((s) => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r())))),
    )
  })
  return async () => {
    const channel = { holding: true, held: [] as ServerResponse[], accepted: [] as any[], url: '' }
    const server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        if (channel.holding) return void channel.held.push(res)
        channel.accepted.push(JSON.parse(Buffer.concat(chunks).toString('utf8')))
        res.writeHead(200).end('ok')
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
    servers.push(server)
    channel.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/alerts`
    return channel
  }
}

async function deliverFlagged(listenerUrl: string, id: string): Promise<number> {
  const body = JSON.stringify({
    id,
    type: 'compliance.screening.flagged',
    created_at: '2026-11-25T10:00:00Z',
    data: { id: `scr_${id}` },
  })
  const answer = await fetch(`${listenerUrl}/webhooks`, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'x-service-signature': createHmac('sha256', secret).update(body).digest('hex'),
    },
  })
  return answer.status
}

const killed = (running: ServeProcess) =>
  new Promise<void>((resolve) => {
    running.process.once('exit', () => resolve())
    running.process.kill('SIGKILL')
  })

const coveredIds = (accepted: any[]) => accepted.map((a) => (a.events as { id: string }[]).map((e) => e.id))

/** bin/watchdesk serve (the built bundle) killed with SIGKILL while an event's alert is on its way:
 * the alert outbox and the cursor over committed events, in SQLite on disk, owe it after restart. */
describe('an event alert across kill -9 of serve', () => {
  // The directory first: after-hooks run last-registered first, so serve stops before it goes.
  const tempDir = useTempDir('watchdesk-alert-crash-')
  const serve = useServeProcess()
  const channelServer = useChannel()

  it('is sent after the restart exactly once, and an alert the channel took before a kill is not sent again', async () => {
    const channel = await channelServer()
    const dataDir = tempDir()
    const overlay = join(dataDir, 'overlay.json')
    writeFileSync(overlay, JSON.stringify({ alerts: { channels: { hook: { type: 'webhook' } } } }))
    const env = {
      ...process.env,
      WATCHDESK_WEBHOOK_SECRETS: secret,
      WATCHDESK_ALERT_CHANNEL_HOOK: channel.url,
    }
    const start = () => serve(['--data-dir', dataDir, '--config', overlay], env)

    // 1. Committed (answered 200), its alert sent, the channel has not answered: kill -9.
    const first = await start()
    expect(await deliverFlagged(first.listenerUrl!, 'evt_crash_1')).toBe(200)
    await waitFor(() => channel.held.length === 1, 'the alert to reach the channel', { timeoutMs: 15_000 })
    await killed(first)
    channel.holding = false

    // 2. After the restart it is sent again, once; a later alert follows it (the queue is in
    // order, so a second copy of the first would have come before it).
    const second = await start()
    await waitFor(() => channel.accepted.length === 1, 'the owed alert after the restart', {
      timeoutMs: 15_000,
    })
    expect(channel.accepted[0]).toMatchObject({
      source: 'watchdesk',
      rule: 'event.type',
      subject: 'event:evt_crash_1',
      title: 'compliance.screening.flagged',
    })
    expect(await deliverFlagged(second.listenerUrl!, 'evt_crash_2')).toBe(200)
    await waitFor(() => channel.accepted.length === 2, 'the next alert', { timeoutMs: 15_000 })
    expect(coveredIds(channel.accepted)).toEqual([['evt_crash_1'], ['evt_crash_2']])

    // 3. Its log row written (the channel's answer is durable): a kill now owes nothing.
    const sentLog = async () => {
      const answer = await fetch(`${second.consoleUrl}/api/call/alerts.log`, {
        method: 'POST',
        headers: { authorization: `Bearer ${second.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ limit: 10 }),
      })
      const records = (
        (await answer.json()) as {
          value: { records: { channel: string; result: string; events?: string[] }[] }
        }
      ).value.records.filter((r) => r.channel === 'hook')
      return records.filter((r) => r.result === 'sent').length === 2 && records
    }
    const records = await waitFor(sentLog, 'both alerts logged as sent')
    expect(records.map((r) => r.events)).toEqual([['evt_crash_2'], ['evt_crash_1']])
    await killed(second)
    const third = await start()
    expect(await deliverFlagged(third.listenerUrl!, 'evt_crash_3')).toBe(200)
    await waitFor(() => channel.accepted.length === 3, 'the alert after the second restart', {
      timeoutMs: 15_000,
    })
    expect(coveredIds(channel.accepted)).toEqual([['evt_crash_1'], ['evt_crash_2'], ['evt_crash_3']])
  })

  it('alerts an event committed by a process that died before any alert was queued (listen, kill -9), at the next serve', async () => {
    const channel = await channelServer()
    channel.holding = false
    const dataDir = tempDir()
    const overlay = join(dataDir, 'overlay.json')
    writeFileSync(overlay, JSON.stringify({ alerts: { channels: { hook: { type: 'webhook' } } } }))
    const env = {
      ...process.env,
      WATCHDESK_WEBHOOK_SECRETS: secret,
      WATCHDESK_ALERT_CHANNEL_HOOK: channel.url,
    }
    // `listen` runs the listener and the store only: nothing alerts while it runs.
    const listen = spawn(
      process.execPath,
      [cliPath, 'listen', '--data-dir', dataDir, '--config', overlay, '--listener-port', '0'],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let said = ''
    listen.stderr.on('data', (c: Buffer) => (said += c.toString()))
    listen.stdout.on('data', (c: Buffer) => (said += c.toString()))
    try {
      const listening = await waitFor(
        () => /listening: (http:\/\/\S+)\/webhooks/.exec(said)?.[1],
        'listen to start',
        {
          timeoutMs: 15_000,
        },
      )
      expect(await deliverFlagged(listening, 'evt_listen_1')).toBe(200)
    } finally {
      await new Promise<void>((resolve) => {
        if (listen.exitCode !== null) return resolve()
        listen.once('exit', () => resolve())
        listen.kill('SIGKILL')
      })
    }
    expect(channel.accepted).toEqual([])

    await serve(['--data-dir', dataDir, '--config', overlay], env)
    await waitFor(() => channel.accepted.length === 1, 'the alert at the next serve', { timeoutMs: 15_000 })
    expect(channel.accepted[0]).toMatchObject({ rule: 'event.type', subject: 'event:evt_listen_1' })
  })
})
