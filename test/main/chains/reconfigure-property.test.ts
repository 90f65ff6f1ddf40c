import { isDeepStrictEqual } from 'node:util'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createPoller, resolveTargets } from '../../../src/main/chains'
import { createMeters, startAlerts } from '../../../src/main/alerts'
import { createStorageHealth, openDatabase } from '../../../src/main/db'
import { silentLogger } from '../../../src/main/log'
import { createPushBus } from '../../../src/main/push'
import { createCommittedEvents } from '../../../src/main/committed'
import { createEventStore } from '../../../src/main/webhooks'
import { createMemoryStore } from '../../../src/main/secrets'
import { chainRegistry } from '../../../src/shared/chains/registry'
import { Config } from '../../../src/shared/config'
import type { ChainsSnapshot } from '../../../src/shared/contract/chains'
import { toDisposable } from '../../../src/shared/disposable'
import { unwrap } from '../../../src/shared/result'
import { manualClock } from '../../support/clock'
import { setBehaviour, useRpcStandin } from '../../support/rpc-standin'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { polygon, useAlertsRig, useRecorder } from '../alerts/harness'

/** Issue 29 item 4, as a property: any sequence of config edits the schema accepts (arbitrary
 * Unicode in names and values), applied while a chain incident is open, sends no alert, keeps the
 * incident, touches only the chains whose own settings changed, and leaves the poller configured
 * as the last edit says. The poller and the alerts capability over a real SQLite file and a real
 * webhook channel; the clock is the test's. */

type Edit = { path: string[]; value: unknown }

const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 })
const others = chainRegistry.map((c) => String(c.serviceId)).filter((id) => id !== '137')

/** Keys an operator edits while the incident lasts; the down chain's URL, `enabled` and the alert
 * rules that would end or mute it legitimately are not among them. */
const edit = fc.oneof(
  fc.record({ path: fc.constant(['pollIntervalMs']), value: fc.integer({ min: 200, max: 60_000 }) }),
  fc.record({
    path: fc.constant(['rpcBaseUrl']),
    value: fc.constantFrom('https://rpc.example', 'https://例え.jp/rpc', 'http://127.0.0.1:9'),
  }),
  fc.record({
    path: fc
      .constantFrom(
        'pollIntervalMs',
        'timeoutMs',
        'laggingAfterSeconds',
        'stalledAfterSeconds',
        'confirmFailures',
        'p95AboveMs',
        'finalizedLagAfterSeconds',
      )
      .map((k) => ['chains', '137', k]),
    value: fc.integer({ min: 1, max: 100_000 }),
  }),
  fc.record({ path: fc.constantFrom(...others).map((id) => ['chains', id, 'slug']), value: text }),
  fc.record({ path: fc.constantFrom(...others).map((id) => ['chains', id, 'enabled']), value: fc.boolean() }),
  fc.record({
    path: fc.constant(['alerts', 'repeatMinutes']),
    value: fc.oneof(fc.constant(0), fc.integer({ min: 30, max: 10_080 })),
  }),
  fc.record({ path: fc.constant(['alerts', 'minFailures']), value: fc.integer({ min: 1, max: 1000 }) }),
  fc.record({ path: fc.constant(['alerts', 'eventTypes']), value: fc.array(text, { maxLength: 3 }) }),
  fc.record({ path: text.map((n) => ['alerts', 'channels', n]), value: fc.constant({ type: 'webhook' }) }),
  fc.record({ path: text.map((n) => ['sources', n]), value: fc.constant({ url: 'https://relay.example' }) }),
  fc.record({
    path: text.map((n) => ['forward', 'targets', n]),
    value: text.map((t) => ({ url: `https://app.example/${encodeURIComponent(t)}` })),
  }),
) as fc.Arbitrary<Edit>

function applied(saved: Record<string, unknown>, { path, value }: Edit): Record<string, unknown> {
  const next = structuredClone(saved)
  let at = next
  for (const key of path.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>
  at[path.at(-1)!] = value
  return next
}

describe('config edits during an open chain incident (property)', () => {
  const tempDir = useTempDir()
  const standin = useRpcStandin()
  const recorder = useRecorder()

  it('any sequence of valid edits sends no alert, keeps the incident and ends with the poller on the last config', async () => {
    const node = await standin(() => ({ status: 503, body: 'upstream unavailable' }))
    const hook = await recorder()
    let saved: Record<string, unknown> = {
      chains: { '137': { url: node.url, pollIntervalMs: 1000, confirmFailures: 1 } },
      alerts: { channels: { ops: { type: 'webhook' }, desktop: null } },
    }
    let config = Config.parse(saved)
    const clock = manualClock(Date.parse('2026-03-02T10:00:00Z'))
    const db = unwrap(openDatabase(join(tempDir(), 'watchdesk.db')))
    const events = createEventStore(db)
    const listeners = new Set<(s: ChainsSnapshot) => void>()
    const scrub = (t: string) => t
    const poller = createPoller({
      targets: resolveTargets(config, null),
      scrub,
      clock,
      onRound: (snapshot) => listeners.forEach((l) => l(snapshot)),
    })
    const alerts = startAlerts({
      db,
      config: () => config,
      secrets: createMemoryStore({ 'alert-channel:ops': `${hook.url}/alerts whsec_alerts_0123` }),
      env: {},
      push: createPushBus(),
      log: silentLogger,
      storage: createStorageHealth(db.name, silentLogger, () => clock.now()),
      meters: createMeters(),
      clock,
      onChainsRound: (l) => {
        listeners.add(l)
        return toDisposable(() => listeners.delete(l))
      },
      listener: () => null,
      committed: createCommittedEvents(),
      eventsAfter: (seq, limit) => events.after(seq, limit),
      eventSummary: (id) => events.get(id),
      shell: 'electron',
    })
    const polygon = () => poller.monitor(137)!
    /** Moves the clock until the node is asked again, then lets the round publish. */
    const nextPoll = async () => {
      const asked = node.received.length
      const checked = polygon().status().checkedAt
      // Big steps: the failing chain backs off up to a minute between polls.
      await waitFor(() => node.received.length > asked || (clock.advance(5_000), false), 'a poll', {
        intervalMs: 5,
      })
      await waitFor(() => polygon().status().checkedAt !== checked, 'its answer', { intervalMs: 5 })
      clock.advance(250)
      await alerts.idle()
    }
    try {
      poller.start()
      await nextPoll()
      await waitFor(() => hook.received.length > 0, 'the down alert')
      const open = unwrap(alerts.incidents({ open: true, limit: 10 }))
      expect(open.map((i) => i.rule)).toEqual(['chain.down'])

      await fc.assert(
        fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 4 }), async (edits) => {
          for (const e of edits) {
            const next = applied(saved, e)
            const parsed = Config.safeParse(next)
            if (!parsed.success) continue
            const before = resolveTargets(config, null)
            saved = next
            config = parsed.data
            const after = resolveTargets(config, null)
            const changed = poller.reconfigure(after, scrub)
            // Only the chains whose own target changed are touched.
            const differ = after
              .filter((t, i) => !isDeepStrictEqual(t, before[i]))
              .map((t) => t.info.serviceId)
            expect(changed.sort()).toEqual(differ.sort())
          }
          await nextPoll()
          expect(hook.received.map((r) => `${r.json.rule} ${r.json.kind}`)).toEqual(['chain.down fired'])
          const still = unwrap(alerts.incidents({ open: true, limit: 10 }))
          expect(still.map((i) => [i.id, i.openedAt])).toEqual(open.map((i) => [i.id, i.openedAt]))
          expect(polygon().status().status).toBe('down')
          for (const target of resolveTargets(config, null))
            expect(poller.monitor(target.info.serviceId)!.target).toEqual(target)
        }),
        { numRuns: 20 },
      )
    } finally {
      poller.stop()
      await alerts.stop()
      db.close()
    }
  }, 120_000)
})

describe('a chain no longer polled during its incident', () => {
  const standin = useRpcStandin()
  const recorder = useRecorder()
  const rig = useAlertsRig(useTempDir())

  it('closes the incident as ended with the config reason, not as a recovery', async () => {
    const node = await standin(polygon())
    const hook = await recorder()
    const input = {
      chains: { '137': { url: node.url, pollIntervalMs: 5000, confirmFailures: 1 } },
      alerts: { channels: { ops: { type: 'webhook' as const }, desktop: null } },
    }
    const r = await rig(
      input,
      createMemoryStore({ 'alert-channel:ops': `${hook.url}/alerts whsec_alerts_0123` }),
    )
    await setBehaviour(node, 'down')
    await r.nextPoll()
    await waitFor(() => hook.received.length > 0, 'the down alert')

    const disabled = Config.parse({ ...input, chains: { '137': { ...input.chains['137'], enabled: false } } })
    expect(r.poller.reconfigure(resolveTargets(disabled, null), (t) => t)).toEqual([137])
    r.clock.advance(250)
    await r.alerts.idle()
    await waitFor(() => hook.received.length > 1, 'the closing alert')
    expect(hook.received.map((x) => `${x.json.rule} ${x.json.kind}`)).toEqual([
      'chain.down fired',
      'chain.down closed',
    ])
    expect(hook.received[1]!.json.body).toContain(
      'Closed without recovering: Disabled in the config (chains.137.enabled is false).',
    )
    const incident = unwrap(r.alerts.incidents({ limit: 10 }))[0]!
    expect(incident.closedReason).toBe('Disabled in the config (chains.137.enabled is false).')
  })
})
