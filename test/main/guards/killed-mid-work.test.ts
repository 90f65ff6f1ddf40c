import { describe, expect, it } from 'vitest'
import { postSigned, useServeProcess } from '../../support/serve-process'
import type { ServeProcess } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'

const secret = 'whsec_guards_killed_0123456789'
const env = { ...process.env, WATCHDESK_WEBHOOK_SECRETS: secret, WATCHDESK_LOG_LEVEL: 'warn' }
const wait = { timeoutMs: 60_000, intervalMs: 250 }

const payment = (i: number, extra: Record<string, unknown> = {}) => ({
  id: `pay_${i}`,
  amount: 1000 + i,
  currency: 'USD',
  ...extra,
})

const body = (id: string, data: unknown) =>
  JSON.stringify({ id, type: 'payment.completed', created_at: new Date().toISOString(), data })

async function call<T>(c: ServeProcess, method: string, params: unknown = {}): Promise<T> {
  const res = await fetch(`${c.consoleUrl}/api/call/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(params),
  })
  const json = (await res.json()) as { ok: boolean; value: T }
  if (!json.ok) throw new Error(`${method}: ${JSON.stringify(json)}`)
  return json.value
}

interface Logged {
  rule: string
  subject: string
  channel: string
}

/** Trial (issue 32 × the console killed mid-work): `bin/watchdesk serve` is killed (SIGKILL) right
 * after the last 200 of a burst of replayed deliveries and of events still being learned by the
 * drift watch. Started again on the same data dir, the guards finish what was owed: every
 * suspected replay alerted exactly once over both runs, and the shape change warned once, naming
 * its fields and its event. */
describe('the guards when the console is killed mid-work', () => {
  const serve = useServeProcess()
  const tempDir = useTempDir('watchdesk-guards-killed-')

  it(
    'owes nothing after a SIGKILL during a replay burst and drift learning: each alert once',
    { timeout: 180_000 },
    async () => {
      const dataDir = tempDir()
      const first = await serve(['--data-dir', dataDir], env)
      const listener = first.listenerUrl!
      // The drift watch learns the shape (10 events by default) ...
      for (let i = 0; i < 30; i++)
        expect(await postSigned(listener, secret, body(`evt_learn_${i}`, payment(i)))).toBe(200)
      // ... then the burst: 12 deliveries each sent again at once (a replay: no rung explains it),
      // and one event with a new field and a retyped one.
      const replayed = Array.from({ length: 12 }, (_, i) => `evt_burst_${String(i).padStart(2, '0')}`)
      const texts = replayed.map((id, i) => body(id, payment(100 + i)))
      await Promise.all(texts.map((t) => postSigned(listener, secret, t)))
      const again = await Promise.all(texts.map((t) => postSigned(listener, secret, t)))
      expect(again.every((s) => s === 200)).toBe(true)
      const changed = body('evt_shape_changed', { ...payment(999), amount: '1999', note: 'new' })
      expect(await postSigned(listener, secret, changed)).toBe(200)
      first.process.kill('SIGKILL')
      await new Promise((r) => first.process.once('exit', r))

      const second = await serve(['--data-dir', dataDir], env)
      const logged = await waitFor(
        async () => {
          const { records } = await call<{ records: Logged[] }>(second, 'alerts.log', { limit: 500 })
          const replays = records.filter(
            (r) => r.rule === 'webhook.replay_suspected' && r.channel === 'desktop',
          )
          const shapes = records.filter((r) => r.rule === 'webhook.shape_changed' && r.channel === 'desktop')
          return replays.length >= replayed.length && shapes.length >= 1 && { replays, shapes }
        },
        'every replay alert and the shape warning, over both runs',
        wait,
      )
      expect(logged.replays.map((r) => r.subject).sort()).toEqual(replayed.map((id) => `event:${id}`))
      expect(logged.shapes).toHaveLength(1)
      const drift = await call<{ drifts: { eventId: string; changes: { path: string }[] }[] }>(
        second,
        'drift.status',
      )
      expect(drift.drifts).toHaveLength(1)
      expect(drift.drifts[0]!.eventId).toBe('evt_shape_changed')
      expect(drift.drifts[0]!.changes.map((c) => c.path).sort()).toEqual(['amount', 'note'])
      const replay = await call<{ lastDay: number }>(second, 'replay.status')
      expect(replay.lastDay).toBe(replayed.length)
    },
  )
})
