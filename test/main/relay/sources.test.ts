import { describe, expect, it } from 'vitest'
import { createRelayToken } from '../../../src/main/relay'
import type { PushMessage } from '../../../src/shared/contract'
import { unwrap } from '../../../src/shared/result'
import { usePostgres } from '../../support/postgres'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { deliver, fill, useFollowingConsoles, useRelays } from './helpers'

describe('a console following a relay as a source', () => {
  const postgres = usePostgres()
  const relays = useRelays()
  const tempDir = useTempDir('watchdesk-sources-')
  const consoles = useFollowingConsoles()

  async function startConsole(dataDir: string, syncUrl: string, token: string) {
    const backend = await consoles({
      dataDir,
      config: { sources: { office: { url: syncUrl } } },
      secrets: { 'source-token:office': token },
    })
    const pushes: PushMessage[] = []
    backend.context.push.subscribe((m) => pushes.push(m))
    return { backend, pushes }
  }

  // Three pages of the relay's catch-up (1,000 events each): progress with events remaining, then
  // live; how fast a console catches up is bench:catchup's question (10,000 here cost ~3 s of CPU
  // more and proved nothing more). The test's own time is generous: what it proves is awaited.
  it('catches up 3,000 events missed while it was closed, then receives new ones live', async () => {
    const store = await relays.postgresStore(await postgres().createDatabase('sources_catchup'))
    const relay = await relays.relay(store)
    const token = unwrap(await createRelayToken(store, 'laptop'))
    await fill(store, 'evt_missed', 3_000)

    const dataDir = tempDir()
    const { backend, pushes } = await startConsole(dataDir, relay.syncUrl, token)
    const local = backend.services.webhooks.store
    await waitFor(() => local.count({}, 1_000_000).count === 3_000 || undefined, '3,000 synced events', {
      timeoutMs: 90_000,
    })
    const db = backend.context.db
    expect(db.prepare(`SELECT count(DISTINCT id) AS n FROM events WHERE source = 'office'`).get()).toEqual({
      n: 3_000,
    })
    await waitFor(
      () => backend.services.sources.list()[0]?.state === 'live' || undefined,
      'the source to go live',
    )
    const progress = pushes.filter((p) => p.topic === 'sources.status').map((p) => p.payload.sources[0]!)
    expect(progress.some((s) => s.state === 'catching-up' && s.remaining !== null && s.remaining > 0)).toBe(
      true,
    )
    expect(backend.services.sources.list()[0]).toMatchObject({ state: 'live', synced: 3_000, remaining: 0 })

    expect(await deliver(`${relay.listenerUrl}/webhooks`, 'evt_live_1')).toBe(200)
    await waitFor(() => local.get('evt_live_1') ?? undefined, 'the live event in the console', {
      timeoutMs: 15_000,
    })
    expect(local.get('evt_live_1')).toMatchObject({ source: 'office', type: 'funding.completed' })
    await waitFor(
      () =>
        pushes.some(
          (p) =>
            p.topic === 'events.appended' &&
            p.payload.events.some((e) => e.id === 'evt_live_1' && e.source === 'office'),
        ) || undefined,
      'an events.appended push for the synced event, with its source',
    )
  }, 120_000)

  it('resumes from its stored cursor after a restart: only what it missed, nothing twice', async () => {
    const store = await relays.postgresStore(await postgres().createDatabase('sources_resume'))
    const relay = await relays.relay(store)
    const token = unwrap(await createRelayToken(store, 'laptop'))
    await fill(store, 'evt_first', 30)
    const dataDir = tempDir()
    const first = await startConsole(dataDir, relay.syncUrl, token)
    await waitFor(
      () => first.backend.services.webhooks.store.count({}, 1000).count === 30 || undefined,
      '30 events',
      { timeoutMs: 30_000 },
    )
    await consoles.close(first.backend)

    await fill(store, 'evt_asleep', 5)
    const second = await startConsole(dataDir, relay.syncUrl, token)
    await waitFor(
      () => second.backend.services.webhooks.store.count({}, 1000).count === 35 || undefined,
      '35 events',
      { timeoutMs: 30_000 },
    )
    await waitFor(() => second.backend.services.sources.list()[0]?.state === 'live' || undefined, 'live', {
      timeoutMs: 30_000,
    })
    expect(second.backend.services.sources.list()[0]!.synced).toBe(5)
    expect(second.backend.context.db.prepare('SELECT max(deliveries) AS d FROM events').get()).toEqual({
      d: 1,
    })
  })

  it('says the relay refused the token, with the fix, when the token is revoked', async () => {
    const store = await relays.postgresStore(await postgres().createDatabase('sources_refused'))
    const relay = await relays.relay(store)
    const token = unwrap(await createRelayToken(store, 'laptop'))
    await store.tokens.revoke('laptop', Date.now())
    const { backend } = await startConsole(tempDir(), relay.syncUrl, token)
    const status = await waitFor(
      () => backend.services.sources.list().find((s) => s.state === 'refused'),
      'the source to be refused',
    )
    expect(status.problem).toMatch(/refused the token.*relay token create/)
    expect(unwrap(await backend.services.sources.test({ name: 'office' }))).toMatchObject({ ok: false })
  })
})
