import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { main } from '../../../src/main/cli/main'
import type { CliIo } from '../../../src/main/cli/io'
import { createRelayToken } from '../../../src/main/relay'
import { unwrap } from '../../../src/shared/result'
import type { Backend } from '../../../src/main/backend'
import { useTempDir } from '../../support/temp'
import { joinConsole } from './console-options'
import { waitFor } from '../../support/wait'
import { useRecorder } from '../alerts/harness'
import { useTestTargets } from '../forward/target'
import { deliver, envelopeBody, useFollowingConsoles, useRelays } from '../relay/helpers'

const id = 'evt_third_path'
/** A type the default rules alert on (`event.type`), so a second alert for it would show. */
const body = envelopeBody(id, 'compliance.screening.flagged')

/** `watchdesk events replay …` as its own process runs it (its own connections, its own sender),
 * in this process: what it printed and its exit code. */
async function eventsReplay(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = []
  const err: string[] = []
  const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), env: { WATCHDESK_LOG_LEVEL: 'warn' } }
  const code = await main(['events', 'replay', ...args], io)
  return { code, out, err }
}

/** What the console has said about the event: its alerts (every rule, every channel). */
const alertsOn = async (backend: Backend) => {
  await backend.services.alerts.idle()
  return unwrap(backend.services.alerts.log(100)).filter(
    (r) => r.events?.includes(id) || r.subject === `event:${id}`,
  )
}

/** The 3 a.m. trial: an event the console already has twice (caught up from a relay and delivered
 * to its own listener) is replayed with `events replay` while the console runs, to a URL and to
 * the configured target. Each replay sends it once (the running console's forwarder and the
 * command's sender never both take it), the configured forward stays the one it was, and the
 * console neither alerts again nor takes the replay for a suspected replay. */
describe('events replay as a third path for an event the listener and a relay delivered', () => {
  const relays = useRelays()
  const tempDir = useTempDir('watchdesk-third-path-')
  const targets = useTestTargets()
  const recorder = useRecorder()
  const consoles = useFollowingConsoles()

  it('sends it once per replay, forwards it no second time, alerts once, suspects no replay', async () => {
    const app = await targets()
    const replayTo = await targets()
    const channel = await recorder()
    const store = relays.sqliteStore(join(tempDir(), 'relay.db'))
    const relay = await relays.relay(store)
    const token = unwrap(await createRelayToken(store, 'laptop'))
    const dataDir = tempDir()
    const backend = await consoles(
      joinConsole(dataDir, { syncUrl: relay.syncUrl, token }, { app: app.url, hook: channel.url }),
    )
    const local = backend.services.webhooks.store
    expect(await deliver(`${relay.listenerUrl}/webhooks`, id, body)).toBe(200)
    await waitFor(() => local.get(id), 'the event caught up from the relay', { timeoutMs: 30_000 })
    expect(await deliver(`${backend.services.webhooks.address().url!}/webhooks`, id, body)).toBe(200)
    expect(local.get(id)?.deliveries).toBe(2)
    await waitFor(() => app.acknowledged.has(id), 'the forward to the configured target', {
      timeoutMs: 15_000,
    })
    const before = await alertsOn(backend)
    expect(before.map((r) => r.rule)).toContain('event.type')

    const toUrl = await eventsReplay([id, '--to', replayTo.url, '--data-dir', dataDir])
    expect(toUrl.code, toUrl.err.join('\n')).toBe(0)
    expect(toUrl.err.at(-1)).toBe('Replayed 1 event: delivered.')
    const overlay = join(dataDir, 'overlay.json')
    const toTarget = await eventsReplay([id, '--target', 'app', '--config', overlay, '--data-dir', dataDir])
    expect(toTarget.code, toTarget.err.join('\n')).toBe(0)
    expect(toTarget.err.at(-1)).toBe('Replayed 1 event: delivered.')

    await waitFor(() => {
      const t = backend.services.forward.status().targets.find((s) => s.name === 'app')
      return t?.pending === 0 && t.failing === 0
    }, 'nothing left queued for the target')
    // Once at the URL; at the target the first forward and the one replay, no more.
    expect(replayTo.received.map((r) => r.id)).toEqual([id])
    expect(app.received.map((r) => r.id)).toEqual([id, id])
    // Still two arrivals of one event: a replay is no arrival, no verdict, no alert.
    expect(local.get(id)?.deliveries).toBe(2)
    const detail = unwrap(await backend.handlers['events.get']({ id }))
    expect(detail.arrivals!.map((a) => a.verdict)).toEqual(['first'])
    expect(backend.services.replay.status()).toMatchObject({ suspected: 0, lastDay: 0 })
    expect(await alertsOn(backend)).toEqual(before)
    const covering = channel.received
      .map((r) => r.json as { events?: { id: string }[] })
      .filter((a) => a.events?.some((e) => e.id === id))
    expect(covering).toHaveLength(1)
  })
})
