import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createRelayToken } from '../../../src/main/relay'
import { unwrap } from '../../../src/shared/result'
import { runMain } from '../../support/cli'
import { useTempDir } from '../../support/temp'
import { joinConsole } from './console-options'
import { waitFor } from '../../support/wait'
import { useRecorder } from '../alerts/harness'
import { signatureValid, useTestTargets } from '../forward/target'
import { deliver, envelopeBody, relaySecret, useFollowingConsoles, useRelays } from '../relay/helpers'

const id = 'evt_join_flagged'
const body = envelopeBody(id, 'compliance.screening.flagged')
/** Other traffic on the relay while the console was closed, so the catch-up is a batch. */
const others = Array.from({ length: 20 }, (_, i) => `evt_join_other_${String(i).padStart(2, '0')}`)

/** One event reaching a console every way it can — caught up from a relay (SQLite store) that
 * took it while the console was closed, then delivered to the console's own listener and
 * redelivered there by the service, then replayed on purpose to a URL — and followed into
 * everything downstream: the alert channel, the forward target, the replay's URL and the export
 * (API and `bin/watchdesk events --json`). Each sees it exactly once. */
describe('one event through the listener, a relay catch-up and a replay', () => {
  const relays = useRelays()
  const tempDir = useTempDir('watchdesk-join-')
  const targets = useTestTargets()
  const recorder = useRecorder()
  const consoles = useFollowingConsoles()

  it('is stored once and alerted, forwarded, replayed and exported exactly once each', async () => {
    const target = await targets()
    const replayTo = await targets()
    const channel = await recorder()
    const store = relays.sqliteStore(join(tempDir(), 'relay.db'))
    const relay = await relays.relay(store)
    const token = unwrap(await createRelayToken(store, 'laptop'))

    // The service delivers to the relay while the console is closed.
    for (const other of others) expect(await deliver(`${relay.listenerUrl}/webhooks`, other)).toBe(200)
    expect(await deliver(`${relay.listenerUrl}/webhooks`, id, body)).toBe(200)

    const dataDir = tempDir()
    const backend = await consoles(
      joinConsole(dataDir, { syncUrl: relay.syncUrl, token }, { app: target.url, hook: channel.url }),
    )
    const local = backend.services.webhooks.store
    await waitFor(() => local.get(id), 'the event caught up from the relay', { timeoutMs: 15_000 })
    expect(local.get(id)).toMatchObject({ source: 'office', deliveries: 1 })

    // The service also delivers it to the console's own listener, and retries once (a duplicate).
    const listener = `${backend.services.webhooks.address().url!}/webhooks`
    expect(await deliver(listener, id, body)).toBe(200)
    expect(await deliver(listener, id, body)).toBe(200)
    expect(local.get(id)?.deliveries).toBe(3)

    // And the operator replays it to another URL.
    expect(
      unwrap(backend.services.forward.replay({ ids: [id], destination: { url: replayTo.url } })),
    ).toEqual({ queued: 1, target: `url:${replayTo.url}` })

    await waitFor(
      () => target.acknowledged.has(id) && replayTo.acknowledged.has(id),
      'the event at the forward target and at the replay URL',
      { timeoutMs: 15_000 },
    )
    await waitFor(() => {
      const app = backend.services.forward.status().targets.find((t) => t.name === 'app')
      return app?.pending === 0 && app.failing === 0
    }, 'nothing left queued for the target')
    await backend.services.alerts.idle()

    // Alerts: one alert covers it, and the alert log records it once per channel (the webhook
    // channel sent it; the desktop channel, with no window here, records it not shown).
    const covering = channel.received
      .map((r) => r.json as { rule?: string; events?: { id: string }[] })
      .filter((a) => a.rule === 'event.type' && a.events?.some((e) => e.id === id))
    expect(covering).toHaveLength(1)
    const logged = unwrap(backend.services.alerts.log(100)).filter((r) => r.events?.includes(id))
    expect(logged.map((r) => [r.rule, r.channel, r.result]).sort()).toEqual([
      ['event.type', 'desktop', 'not_shown'],
      ['event.type', 'hook', 'sent'],
    ])

    // Forward: the configured target got it once (with the service's signature), and every other
    // event of the catch-up once; the replay URL got only the replayed event, once.
    const atTarget = target.received.map((r) => r.id)
    expect(atTarget.filter((r) => r === id)).toHaveLength(1)
    expect(atTarget.sort()).toEqual([...others, id].sort())
    expect(
      signatureValid(
        target.received.find((r) => r.id === id)!,
        relaySecret,
      ),
    ).toBe(true)
    expect(replayTo.received.map((r) => r.id)).toEqual([id])

    // The export, through the API and the command line: one line for it, among one per event.
    const exported = unwrap(await backend.handlers['events.export']({ filter: {}, format: 'jsonl' }))
    const apiIds = exported.text
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: string }).id)
    expect(apiIds.filter((r) => r === id)).toHaveLength(1)
    expect(apiIds.sort()).toEqual([...others, id].sort())
    const cli = await runMain(['events', '--json', '--limit', '100', '--data-dir', dataDir], {
      ...process.env,
      WATCHDESK_LOG_LEVEL: 'warn',
    })
    expect(cli).toMatchObject({ code: 0, stderr: '' })
    const cliIds = cli.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: string }).id)
    expect(cliIds.sort()).toEqual([...others, id].sort())
  })
})
