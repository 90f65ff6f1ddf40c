import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createRelayToken } from '../../../src/main/relay'
import type { RelayStore } from '../../../src/main/relay'
import type { PushMessage } from '../../../src/shared/contract'
import { unwrap } from '../../../src/shared/result'
import { usePostgres } from '../../support/postgres'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { deliver, envelopeBody, useFollowingConsoles, useRelays } from './helpers'

/** A conflict (a redelivery of a known id with a different body) that reaches the relay after a
 * console already synced the event must still reach that console, with the differing body. */
describe('a conflict on a relay after a console synced the event', () => {
  const postgres = usePostgres()
  const relays = useRelays()
  const tempDir = useTempDir('watchdesk-relay-conflict-')
  const consoles = useFollowingConsoles()

  const stores: Record<string, (name: string) => Promise<RelayStore>> = {
    sqlite: async (name) => relays.sqliteStore(join(tempDir(), `${name}.db`)),
    postgres: async (name) => relays.postgresStore(await postgres().createDatabase(name)),
  }

  it.each(['sqlite', 'postgres'])('%s store: reaches the following console', async (kind) => {
    const store = await stores[kind]!(`conflict_${kind}`)
    const relay = await relays.relay(store)
    const token = unwrap(await createRelayToken(store, 'laptop'))
    const webhooks = `${relay.listenerUrl}/webhooks`
    const first = envelopeBody('evt_conflict_1')
    const other = envelopeBody('evt_conflict_1', 'funding.completed', { amount: 99 })
    expect(await deliver(webhooks, 'evt_conflict_1', first)).toBe(200)
    expect(await deliver(webhooks, 'evt_before_1')).toBe(200)

    const backend = await consoles({
      dataDir: tempDir(),
      config: { sources: { office: { url: relay.syncUrl } } },
      secrets: { 'source-token:office': token },
    })
    const pushes: PushMessage[] = []
    backend.context.push.subscribe((m) => pushes.push(m))
    const local = backend.services.webhooks.store
    await waitFor(() => local.count({}, 100).count === 2 || undefined, 'both events synced')
    expect(local.get('evt_conflict_1')).toMatchObject({ conflict: false, conflicts: 0 })

    // The conflicting redelivery reaches the relay only now; then one more ordinary event.
    expect(await deliver(webhooks, 'evt_conflict_1', other)).toBe(200)
    expect(await deliver(webhooks, 'evt_after_1')).toBe(200)
    const synced = await waitFor(() => {
      const e = local.get('evt_conflict_1')
      return e && e.conflicts === 1 && local.get('evt_after_1') ? e : undefined
    }, 'the conflict and the next event in the console')
    expect(synced).toMatchObject({ conflict: true, conflicts: 1, conflictBody: other, body: first })
    expect(local.count({}, 100).count).toBe(3)
    await waitFor(
      () =>
        pushes.some(
          (p) =>
            p.topic === 'events.appended' &&
            p.payload.events.some((e) => e.id === 'evt_conflict_1' && e.conflict),
        ) || undefined,
      'the view told of the conflict',
    )
    // The relay's own reads and sync API carry it too.
    expect(await store.get('evt_conflict_1')).toMatchObject({ conflicts: 1, conflictBody: other })
    const page = unwrap(await store.readAfter('0', 100))
    const resent = page.events.filter((e) => e.id === 'evt_conflict_1')
    expect(resent).toHaveLength(1)
    expect(resent[0]).toMatchObject({ conflicts: 1 })
    expect(Buffer.from(resent[0]!.conflictBody!, 'base64').toString()).toBe(other)
    // Commit order: the conflict moved the event after evt_before_1 and before evt_after_1.
    expect(page.events.map((e) => e.id)).toEqual(['evt_before_1', 'evt_conflict_1', 'evt_after_1'])
  })
})
