import { join } from 'node:path'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { describe, expect, it } from 'vitest'
import { createRelayToken } from '../../../src/main/relay'
import { unwrap } from '../../../src/shared/result'
import { promtoolCheckMetrics } from '../../support/promtool'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { deliver, envelopeBody, useRelays } from './helpers'

/** GET /metrics on the relay's sync port (issue 13), against a relay on a SQLite store. */
describe('the relay /metrics', () => {
  const relays = useRelays()
  const tempDir = useTempDir('watchdesk-relay-metrics-')

  it('serves its listener counts in the Prometheus text format, to a live relay token only', async () => {
    const store = relays.sqliteStore(join(tempDir(), 'relay.db'))
    const relay = await relays.relay(store)
    const token = unwrap(await createRelayToken(store, 'prometheus'))
    const webhooks = `${relay.listenerUrl}/webhooks`
    expect(await deliver(webhooks, 'evt_m1')).toBe(200)
    expect(await deliver(webhooks, 'evt_m2')).toBe(200)
    expect(await deliver(webhooks, 'evt_m1')).toBe(200)
    const forged = await fetch(webhooks, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': 'f'.repeat(64) },
      body: envelopeBody('evt_forged'),
    })
    expect(forged.status).toBe(401)
    const huge = await fetch(webhooks, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': 'f'.repeat(64) },
      body: 'x'.repeat(2 * 1024 * 1024),
    }).catch(() => null)
    expect(huge?.status ?? 413).toBe(413)

    expect((await fetch(`${relay.syncUrl}/metrics`)).status).toBe(401)
    const wrong = await fetch(`${relay.syncUrl}/metrics`, { headers: { authorization: 'Bearer nope' } })
    expect(wrong.status).toBe(401)
    const response = await fetch(`${relay.syncUrl}/metrics`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0.0.4/)
    const text = await response.text()
    expect(promtoolCheckMetrics(text)).toEqual({ code: 0, problems: '' })
    const families = parsePrometheusTextFormat(text)
    const family = (name: string) => families.find((f) => f.name === name)!
    expect(family('watchdesk_listener_accepted_total')).toMatchObject({
      type: 'COUNTER',
      metrics: [{ value: '2' }],
    })
    expect(family('watchdesk_listener_duplicates_total').metrics).toEqual([{ value: '1' }])
    expect(family('watchdesk_listener_conflicts_total').metrics).toEqual([{ value: '0' }])
    expect(family('watchdesk_listener_unavailable_total').metrics).toEqual([{ value: '0' }])
    expect(family('watchdesk_listener_up').metrics).toEqual([{ value: '1' }])
    expect(family('watchdesk_storage_ok').metrics).toEqual([{ value: '1' }])
    expect(
      family('watchdesk_listener_rejected_total').metrics.sort((a, b) =>
        a.labels!.reason!.localeCompare(b.labels!.reason!),
      ),
    ).toEqual([
      // Every reason has its series from the start (0 until a refusal), so a rate by reason has data.
      { labels: { reason: 'malformed' }, value: '0' },
      { labels: { reason: 'method' }, value: '0' },
      { labels: { reason: 'signature' }, value: '1' },
      { labels: { reason: 'timeout' }, value: '0' },
      { labels: { reason: 'too_large' }, value: '1' },
      { labels: { reason: 'unknown_path' }, value: '0' },
    ])
    const commit = family('watchdesk_listener_commit_seconds')
    expect(commit.type).toBe('HISTOGRAM')
    // The three signed deliveries (two new, one duplicate), each answered after its commit.
    expect(commit.metrics[0]!.count).toBe('3')

    // A revoked token is refused at once, as on the sync API.
    await store.tokens.revoke('prometheus', Date.now())
    const revoked = await fetch(`${relay.syncUrl}/metrics`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(revoked.status).toBe(401)
  })

  it('lets each token scope open only its part: metrics → /metrics, read → the sync API too, admin → all', async () => {
    const store = relays.sqliteStore(join(tempDir(), 'relay.db'))
    const relay = await relays.relay(store)
    const tokens = {
      metrics: unwrap(await createRelayToken(store, 'prometheus', 'metrics')),
      read: unwrap(await createRelayToken(store, 'console', 'read')),
      admin: unwrap(await createRelayToken(store, 'ops', 'admin')),
    }
    const status = async (path: string, token: string) =>
      (await fetch(`${relay.syncUrl}${path}`, { headers: { authorization: `Bearer ${token}` } })).status
    expect(await status('/metrics', tokens.metrics)).toBe(200)
    const refused = await fetch(`${relay.syncUrl}/sync/events?after=0`, {
      headers: { authorization: `Bearer ${tokens.metrics}` },
    })
    expect(refused.status).toBe(403)
    expect((await refused.json()).error).toMatch(/scope metrics.*--scope read/)
    expect(await status('/sync/stream?after=0', tokens.metrics)).toBe(403)
    expect(await status('/sync/listener', tokens.metrics)).toBe(403)
    for (const token of [tokens.read, tokens.admin]) {
      expect(await status('/metrics', token)).toBe(200)
      expect(await status('/sync/events?after=0', token)).toBe(200)
      expect(await status('/sync/listener', token)).toBe(200)
    }
    expect((await store.tokens.list()).map((t) => [t.name, t.scope])).toEqual([
      ['console', 'read'],
      ['ops', 'admin'],
      ['prometheus', 'metrics'],
    ])
  })

  it('shows its followers: streams live and catching up, cut, bytes queued, cursors refused (all at 0 before the first)', async () => {
    const store = relays.sqliteStore(join(tempDir(), 'relay.db'))
    const relay = await relays.relay(store)
    const token = unwrap(await createRelayToken(store, 'prometheus'))
    const scrape = async () => {
      const text = await (
        await fetch(`${relay.syncUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } })
      ).text()
      expect(promtoolCheckMetrics(text)).toEqual({ code: 0, problems: '' })
      const families = parsePrometheusTextFormat(text)
      return (name: string, labels: Record<string, string> = {}) =>
        families
          .find((f) => f.name === name)
          ?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value
    }
    const before = await scrape()
    expect(before('watchdesk_relay_streams', { state: 'live' })).toBe('0')
    expect(before('watchdesk_relay_streams', { state: 'catching_up' })).toBe('0')
    expect(before('watchdesk_relay_streams_cut_total')).toBe('0')
    expect(before('watchdesk_relay_stream_buffered_bytes')).toBe('0')
    expect(before('watchdesk_relay_cursor_refusals_total', { problem: 'past-end' })).toBe('0')

    expect(await deliver(`${relay.listenerUrl}/webhooks`, 'evt_follow_1')).toBe(200)
    const streams = [new AbortController(), new AbortController()]
    for (const s of streams) {
      const res = await fetch(`${relay.syncUrl}/sync/stream?after=0`, {
        headers: { authorization: `Bearer ${token}` },
        signal: s.signal,
      })
      expect(res.status).toBe(200)
    }
    await waitFor(() => relay.streams().live === 2 || undefined, 'both streams live')
    const refused = await fetch(`${relay.syncUrl}/sync/events?after=99`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(refused.status).toBe(409)
    const during = await scrape()
    expect(during('watchdesk_relay_streams', { state: 'live' })).toBe('2')
    expect(during('watchdesk_relay_streams', { state: 'catching_up' })).toBe('0')
    expect(during('watchdesk_relay_cursor_refusals_total', { problem: 'past-end' })).toBe('1')
    expect(during('watchdesk_relay_cursor_refusals_total', { problem: 'other-store' })).toBe('0')
    expect(during('watchdesk_relay_feed_reads_total')).toBeDefined()
    streams.forEach((s) => s.abort())
    await waitFor(() => relay.streams().live === 0 || undefined, 'the streams closed')
    expect((await scrape())('watchdesk_relay_streams', { state: 'live' })).toBe('0')
  })
})
