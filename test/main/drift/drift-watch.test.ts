import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../../src/main/secrets'
import { signBody } from '../../../src/main/webhooks'
import type { RunningConsole } from '../../../src/main/serve'
import { callApi, useTestConsole } from '../../support/console'
import { promtoolCheckMetrics } from '../../support/promtool'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { useRecorder } from '../alerts/harness'
import type { Recorded } from '../alerts/harness'

/** The payload drift watch end to end in serve mode: real listener, SQLite on disk, the alerts'
 * incidents and a real webhook alert channel (a local recorder). */

const secret = 'whsec_drift_0123456789abcdef'
const wait = { timeoutMs: 30_000 }

function payment(i: number, extra: Record<string, unknown> = {}) {
  return {
    id: `pay_${i}`,
    amount: 1000 + i,
    currency: 'USD',
    customer: { id: `cus_${i}`, email: `c${i}@example.com` },
    ...extra,
  }
}

async function deliver(c: RunningConsole, id: string, type: string, data: unknown): Promise<number> {
  const body = JSON.stringify({ id, type, created_at: new Date().toISOString(), data })
  const response = await fetch(`${c.backend.services.webhooks.address().url}/webhooks/wh_1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': signBody(secret, body) },
    body,
  })
  return response.status
}

describe('payload drift watch', () => {
  const tempDir = useTempDir('watchdesk-drift-')
  const startConsole = useTestConsole()
  const recorder = useRecorder()

  async function consoleWithHook(config: Record<string, unknown> = {}) {
    const hook = await recorder()
    const dir = tempDir()
    const rendererDir = join(dir, 'renderer')
    mkdirSync(rendererDir)
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>watchdesk</title>')
    const configFile = join(dir, 'overlay.json')
    writeFileSync(
      configFile,
      JSON.stringify({
        alerts: { channels: { hook: { type: 'webhook', rules: ['webhook.shape_changed'] } } },
        ...config,
      }),
    )
    const c = await startConsole({
      dataDir: dir,
      configFile,
      rendererDir,
      secrets: createMemoryStore({
        'webhook-secret:wh_1': secret,
        'alert-channel:hook': `${hook.url}/alerts`,
      }),
    })
    return { c, hook, dir }
  }

  const shapeAlerts = (received: Recorded[]) =>
    received.filter((r) => JSON.stringify(r.json).includes('webhook.shape_changed'))

  async function readThrough(c: RunningConsole, events: number) {
    return waitFor(
      async () => {
        const { json } = await callApi(c, 'drift.status')
        const status = json.value
        const read = status.types.reduce((n: number, t: { events: number }) => n + t.events, 0)
        return read >= events ? status : undefined
      },
      `the drift watch to read ${events} events`,
      wait,
    )
  }

  it('30 events of one shape then one with a new field and a retyped field → one warning naming both fields and the event id; none before', async () => {
    const { c, hook } = await consoleWithHook()
    for (let i = 0; i < 30; i++)
      expect(await deliver(c, `evt_same_${i}`, 'payment.succeeded', payment(i))).toBe(200)
    const learned = await readThrough(c, 30)
    expect(learned.types).toEqual([{ type: 'payment.succeeded', events: 30, fields: 6, learning: false }])
    expect(learned.drifts).toEqual([])
    await c.backend.services.alerts.idle()
    expect(shapeAlerts(hook.received)).toEqual([])
    expect((await callApi(c, 'alerts.incidents', { open: true })).json.value.incidents).toEqual([])

    // `fee` is new, `amount` comes as a string.
    const changed = { ...payment(30, { fee: 25 }), amount: '1030.00' }
    expect(await deliver(c, 'evt_changed_30', 'payment.succeeded', changed)).toBe(200)
    const alert = await waitFor(() => shapeAlerts(hook.received)[0], 'the shape warning', wait)
    const text = JSON.stringify(alert.json)
    expect(text).toContain('fee added (number)')
    expect(text).toContain('amount retyped number → string')
    expect(text).toContain('evt_changed_30')

    // The same change again is no new warning; neither is a later event of the learned shape.
    expect(
      await deliver(c, 'evt_changed_31', 'payment.succeeded', { ...payment(31, { fee: 5 }), amount: '1.00' }),
    ).toBe(200)
    expect(await deliver(c, 'evt_same_32', 'payment.succeeded', payment(32))).toBe(200)
    const status = await readThrough(c, 33)
    await c.backend.services.alerts.idle()
    expect(shapeAlerts(hook.received)).toHaveLength(1)
    expect(status.drifts).toMatchObject([
      {
        type: 'payment.succeeded',
        eventId: 'evt_changed_30',
        acknowledged: false,
        changes: [
          { kind: 'retyped', path: 'amount', from: ['number'], to: ['string'] },
          { kind: 'added', path: 'fee', from: [], to: ['number'] },
        ],
      },
    ])
    expect(status.unacknowledged).toBe(1)
    const open = (await callApi(c, 'alerts.incidents', { open: true })).json.value.incidents
    expect(open).toMatchObject([{ rule: 'webhook.shape_changed', severity: 'warning' }])
  })

  it('acknowledging the change stops the warning: the incident closes, the entries land in drift.acknowledged, and later events of the acknowledged shape stay quiet', async () => {
    const { c, hook } = await consoleWithHook({ drift: { learnEvents: 3 } })
    for (let i = 0; i < 3; i++)
      expect(await deliver(c, `evt_a_${i}`, 'payment.succeeded', payment(i))).toBe(200)
    await readThrough(c, 3)
    const { customer: _gone, ...withoutCustomer } = payment(3)
    expect(await deliver(c, 'evt_a_3', 'payment.succeeded', { ...withoutCustomer, tip: 'x' })).toBe(200)
    const status = await waitFor(
      async () => {
        const s = (await callApi(c, 'drift.status')).json.value
        return s.drifts.length === 1 ? s : undefined
      },
      'the change',
      wait,
    )
    // `customer` removed is one change, not one per field under it.
    expect(status.drifts[0].summary).toBe('customer removed (was object); tip added (string)')
    await waitFor(
      async () =>
        (await callApi(c, 'alerts.incidents', { open: true })).json.value.incidents.length === 1
          ? true
          : undefined,
      'the open incident',
      wait,
    )

    const acked = await callApi(c, 'drift.acknowledge', { id: status.drifts[0].id })
    expect(acked.json.value).toMatchObject({ unacknowledged: 0, drifts: [{ acknowledged: true }] })
    expect(c.backend.context.config().drift.acknowledged).toEqual([
      'payment.succeeded customer',
      'payment.succeeded tip',
    ])
    await waitFor(
      async () =>
        (await callApi(c, 'alerts.incidents', { open: true })).json.value.incidents.length === 0
          ? true
          : undefined,
      'the incident to close',
      wait,
    )
    const missing = await callApi(c, 'drift.acknowledge', { id: 999 })
    expect(missing.status).toBe(404)
    expect(missing.json.error.message).toContain('no recent shape change 999')

    // An entry written ahead (a change the service announced) keeps a change from warning at all.
    await c.backend.context.updateConfig((saved) => {
      saved.drift = {
        ...(saved.drift as object),
        acknowledged: ['payment.* metadata', 'payment.succeeded customer', 'payment.succeeded tip'],
      }
    })
    expect(
      await deliver(c, 'evt_a_4', 'payment.succeeded', { ...payment(4), tip: 'y', metadata: { order: '7' } }),
    ).toBe(200)
    const after = await waitFor(
      async () => {
        const s = (await callApi(c, 'drift.status')).json.value
        return s.drifts.length === 2 ? s : undefined
      },
      'the second change recorded',
      wait,
    )
    expect(after.drifts[0]).toMatchObject({ eventId: 'evt_a_4', acknowledged: true })
    await c.backend.services.alerts.idle()
    expect(shapeAlerts(hook.received).filter((r) => JSON.stringify(r.json).includes('evt_a_4'))).toEqual([])
  })

  it('shows its counters in /metrics (promtool-clean, 0 before any change) and resumes after a restart without warning twice', async () => {
    const { c, hook, dir } = await consoleWithHook({ drift: { learnEvents: 2 } })
    const metrics = async (console: RunningConsole) => {
      const response = await fetch(`${console.url}/metrics`, {
        headers: { authorization: `Bearer ${console.token}` },
      })
      return response.text()
    }
    const before = await metrics(c)
    expect(promtoolCheckMetrics(before)).toEqual({ code: 0, problems: '' })
    expect(before).toContain('watchdesk_webhook_shape_changes_total 0')
    expect(before).toContain('watchdesk_webhook_shape_changes_unacknowledged 0')
    for (let i = 0; i < 2; i++)
      expect(await deliver(c, `evt_r_${i}`, 'card.created', { id: `card_${i}`, last4: '4242' })).toBe(200)
    await readThrough(c, 2)
    expect(await deliver(c, 'evt_r_2', 'card.created', { id: 'card_2', last4: 4242 })).toBe(200)
    await waitFor(() => shapeAlerts(hook.received)[0], 'the warning', wait)
    expect(await metrics(c)).toContain('watchdesk_webhook_shape_changes_unacknowledged 1')
    await c.close()

    const again = await startConsole({
      dataDir: dir,
      configFile: join(dir, 'overlay.json'),
      rendererDir: join(dir, 'renderer'),
      secrets: createMemoryStore({
        'webhook-secret:wh_1': secret,
        'alert-channel:hook': `${hook.url}/alerts`,
      }),
    })
    const status = (await callApi(again, 'drift.status')).json.value
    expect(status.types).toEqual([{ type: 'card.created', events: 3, fields: 2, learning: false }])
    expect(status.drifts).toMatchObject([{ eventId: 'evt_r_2', summary: 'last4 retyped string → number' }])
    expect(await deliver(again, 'evt_r_3', 'card.created', { id: 'card_3', last4: 1111 })).toBe(200)
    await readThrough(again, 4)
    await again.backend.services.alerts.idle()
    expect(shapeAlerts(hook.received)).toHaveLength(1)
  })
})
