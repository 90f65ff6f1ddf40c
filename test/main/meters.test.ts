import { Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { commitBuckets, createMeters } from '../../src/main/meters'
import { registerListenerFigures } from '../../src/main/meters/registry'
import { promtoolCheckMetrics } from '../support/promtool'

/** Issue 33.4: the listener's figures are kept without the metrics library (the desktop app never
 * loads it; serve registers them once its back end runs), and shown in full when registered. */
describe('the listener meters as plain figures', () => {
  it('shows at the first scrape what was observed before the registry existed, as prom-client would', async () => {
    const latenciesMs = [0.4, 1, 3, 7, 7, 40, 90, 600, 2400, 9000]
    const meters = createMeters()
    for (const ms of latenciesMs) meters.committed(ms)
    for (const status of [401, 401, 413, 503]) meters.rejected(status)

    const registry = new Registry()
    registerListenerFigures(registry, () => meters.read())
    const text = await registry.metrics()

    // The same observations through prom-client's own histogram: the lines must be the same.
    const reference = new Registry()
    const histogram = new Histogram({
      name: 'watchdesk_listener_commit_seconds',
      help: 'reference',
      buckets: [...commitBuckets],
      registers: [reference],
    })
    for (const ms of latenciesMs) histogram.observe(ms / 1000)
    const series = (t: string) =>
      t.split('\n').filter((l) => l.startsWith('watchdesk_listener_commit_seconds'))
    expect(series(text)).toEqual(series(await reference.metrics()))
    expect(text).toContain('watchdesk_listener_commit_seconds_count 10')

    expect(text).toContain('watchdesk_listener_rejected_total{reason="signature"} 2')
    expect(text).toContain('watchdesk_listener_rejected_total{reason="too_large"} 1')
    expect(text).toContain('watchdesk_listener_rejected_total{reason="http_503"} 1')
    // Every known reason from 0, so a rate by reason has data before the first refusal.
    expect(text).toContain('watchdesk_listener_rejected_total{reason="timeout"} 0')
    expect(meters.signatureRejections()).toBe(2)
    expect(promtoolCheckMetrics(text)).toEqual({ code: 0, problems: '' })

    // Observed after registration too: read at each scrape.
    meters.committed(1)
    expect(await registry.metrics()).toContain('watchdesk_listener_commit_seconds_count 11')
  })
})
