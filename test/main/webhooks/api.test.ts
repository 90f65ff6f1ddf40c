import { describe, expect, it } from 'vitest'
import type { EventSummary } from '../../../src/shared/contract/events'
import { signBody } from '../../../src/main/webhooks'
import { csvCell } from '../../../src/main/api/events'
import { silentLogger } from '../../../src/main/log'
import { dispatch } from '../../../src/main/transport/dispatch'
import { envelope, post, secretA, useWebhookBackend } from './helpers'
import type { TestBackend } from './helpers'

async function deliver(
  b: TestBackend,
  id: string,
  type: string,
  data: Record<string, unknown> = { id: `d_${id}` },
) {
  const body = envelope(id, type, data)
  const answer = await post(b.webhookUrl, body, { 'x-service-signature': signBody(secretA, body) })
  expect(answer.status).toBe(200)
}

// Through the same dispatcher both transports use: requests are validated and defaulted there.
const call = async (b: TestBackend, name: string, request: unknown): Promise<any> => {
  const result: any = await dispatch(b.handlers, name, request, silentLogger)
  expect(result.ok, JSON.stringify(result)).toBe(true)
  return result.value
}

describe('events API', () => {
  const start = useWebhookBackend()

  it('pages through every event exactly once, newest first, with keyset cursors', async () => {
    const b = await start()
    for (let i = 0; i < 23; i++)
      await deliver(b, `evt_page_${String(i).padStart(2, '0')}`, i % 2 ? 'card.frozen' : 'payout.failed')
    const seen: EventSummary[] = []
    let after: unknown = undefined
    for (;;) {
      const page = await call(b, 'events.list', { filter: {}, limit: 5, ...(after ? { after } : {}) })
      seen.push(...page.rows)
      if (!page.next) break
      after = page.next
    }
    expect(seen.map((e) => e.id)).toEqual(
      Array.from({ length: 23 }, (_, i) => `evt_page_${String(22 - i).padStart(2, '0')}`),
    )
  })

  it('filters by group, type, time range and id or data id prefix', async () => {
    const b = await start()
    await deliver(b, 'evt_f1', 'funding.completed', {
      id: 'fund_7Q2M',
      amount: 1000,
      currency: 'USD',
      target_amount: 998.75,
      target_currency: 'USDC',
    })
    await deliver(b, 'evt_c1', 'card.frozen', { id: 'card_1' })
    await deliver(b, 'evt_b1', 'compliance.screening.flagged', { id: 'scr_1' })
    await deliver(b, 'evt_u1', 'something.else', {})
    const ids = async (filter: object) =>
      (await call(b, 'events.list', { filter })).rows.map((r: EventSummary) => r.id)
    expect(await ids({ groups: ['payments'] })).toEqual(['evt_f1'])
    expect(await ids({ groups: ['business', 'unknown'] })).toEqual(['evt_u1', 'evt_b1'])
    expect(await ids({ types: ['card.frozen'] })).toEqual(['evt_c1'])
    expect(await ids({ search: 'fund_7Q' })).toEqual(['evt_f1'])
    expect(await ids({ search: 'evt_c' })).toEqual(['evt_c1'])
    expect(await ids({ from: Date.now() + 60_000 })).toEqual([])
    expect(await ids({ to: Date.now() + 60_000, from: Date.now() - 60_000 })).toHaveLength(4)
    const count = await call(b, 'events.count', { filter: { groups: ['cards'] } })
    const newest = Math.max(...(await call(b, 'events.list', {})).rows.map((r: EventSummary) => r.seq))
    expect(count).toEqual({ count: 1, capped: false, total: 4, throughSeq: newest })
    const [funding] = (await call(b, 'events.list', { filter: { types: ['funding.completed'] } })).rows
    expect(funding.fundingLine).toBe('1,000 USD → 998.75 USDC')
  })

  it('returns one event with its raw body, and not_found for an unknown id', async () => {
    const b = await start()
    await deliver(b, 'evt_detail', 'report.ready', { id: 'rep_1', name: 'Zürich' })
    const detail = await call(b, 'events.get', { id: 'evt_detail' })
    expect(detail.body).toBe(envelope('evt_detail', 'report.ready', { id: 'rep_1', name: 'Zürich' }))
    expect(detail.data).toEqual({ id: 'rep_1', name: 'Zürich' })
    const missing: any = await dispatch(b.handlers, 'events.get', { id: 'evt_nope' }, silentLogger)
    expect(missing.ok).toBe(false)
    expect(missing.error.code).toBe('not_found')
  })

  it('exports the filtered set as JSON lines and as CSV', async () => {
    const b = await start()
    await deliver(b, 'evt_x1', 'payout.failed', { id: 'po_1', reason: 'bank said "no", twice' })
    await deliver(b, 'evt_x2', 'card.created', { id: 'card_2' })
    const jsonl = await call(b, 'events.export', { filter: { groups: ['payments'] }, format: 'jsonl' })
    expect(jsonl.rows).toBe(1)
    const line = JSON.parse(jsonl.text.trim())
    expect(line).toMatchObject({ id: 'evt_x1', type: 'payout.failed', deliveries: 1, data: { id: 'po_1' } })
    const csv = await call(b, 'events.export', { filter: {}, format: 'csv' })
    const lines = csv.text.trim().split('\n')
    expect(lines[0]).toBe(
      'id,type,group,created_at,received_at,deliveries,endpoint,data_id,funding,conflicts,conflict_body,data',
    )
    expect(lines).toHaveLength(3)
    expect(lines[2]).toContain('"{""id"":""po_1"",""reason"":""bank said \\""no\\"", twice""}"')
    expect(csv.fileName).toMatch(/^watchdesk-events-.*\.csv$/)
  })

  it('quotes CSV cells and defuses spreadsheet formulas', () => {
    expect(csvCell('plain')).toBe('plain')
    expect(csvCell('a,b')).toBe('"a,b"')
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`)
  })

  it('sends a signed test event to its own listener and stores it', async () => {
    const b = await start()
    const sent = await call(b, 'events.sendTest', { type: 'funding.completed', endpoint: 'wh_beta' })
    expect(sent.status).toBe(200)
    expect(sent.endpoint).toBe('wh_beta')
    const stored = await call(b, 'events.get', { id: sent.id })
    expect(stored.endpoint).toBe('wh_beta')
    expect(stored.fundingLine).toBe('1,000 USD → 998.75 USDC')
    const missing: any = await dispatch(
      b.handlers,
      'events.sendTest',
      { type: 'card.frozen', endpoint: 'wh_none' },
      silentLogger,
    )
    expect(missing.ok).toBe(false)
  })

  it('reports when the listener was down between runs', async () => {
    const b = await start()
    const current = b.context.db
      .prepare('SELECT started_at FROM listener_runs ORDER BY id DESC LIMIT 1')
      .get() as {
      started_at: number
    }
    // An earlier run that was killed (no stop recorded): down from its last sign of life.
    b.context.db
      .prepare('INSERT INTO listener_runs (id, started_at, alive_at, stopped_at) VALUES (0, ?, ?, NULL)')
      .run(current.started_at - 3_600_000, current.started_at - 600_000)
    const status = await call(b, 'events.listener', {})
    expect(status.outages).toEqual([{ from: current.started_at - 600_000, to: current.started_at }])
  })

  it('reports listener status without any secret in it', async () => {
    const b = await start()
    const status = await call(b, 'events.listener', {})
    expect(status.listening).toBe(true)
    expect(status.url).toBe(b.services.webhooks.address().url)
    expect(status.endpoints).toEqual(['wh_alpha', 'wh_beta'])
    expect(JSON.stringify(status)).not.toMatch(/whsec_/)
  })
})
