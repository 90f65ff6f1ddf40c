import { execFileSync } from 'node:child_process'
import { copyFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { createRelayToken, openSqliteRelayStore } from '../../../src/main/relay'
import type { RelayStore } from '../../../src/main/relay'
import { openPostgresStore } from '../../../src/main/relay/pg-store'
import { silentLogger } from '../../../src/main/log'
import { unwrap } from '../../../src/shared/result'
import { postgresBinDir, usePostgres } from '../../support/postgres'
import { useRelayProcesses } from '../../support/relay-process'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { deliver, fill, getJson, relaySecret, useFollowingConsoles, useRelays } from './helpers'

/** The status and body of GET `url` (a stream's answer is read only up to its headers when 200). */
async function answer(url: string, token: string): Promise<{ status: number; body: any }> {
  const controller = new AbortController()
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal })
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    controller.abort()
    return { status: res.status, body: null }
  }
  return { status: res.status, body: await res.json() }
}

/** Opens a stream and resolves with the next `cursor` it names (a heartbeat's, or a page's `next`),
 * keeping it open until `close`. */
async function follower(syncUrl: string, token: string, after = '0') {
  const controller = new AbortController()
  const res = await fetch(`${syncUrl}/sync/stream?after=${encodeURIComponent(after)}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  })
  expect(res.status).toBe(200)
  const reader = res.body!.getReader()
  let text = ''
  let frames = 0
  void (async () => {
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true, value: undefined }))
      if (chunk.done) return
      text += new TextDecoder().decode(chunk.value)
      frames = text.split('\n\n').length - 1
    }
  })()
  return { frames: () => frames, text: () => text, close: () => controller.abort() }
}

/** User and system CPU time of a process so far, in seconds (/proc/PID/stat, clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

type StoreKind = 'sqlite' | 'postgres'

describe.each<StoreKind>(['sqlite', 'postgres'])(
  'sync cursors are checked, never trusted (%s store)',
  (kind) => {
    const postgres = usePostgres()
    const relays = useRelays()
    const tempDir = useTempDir('watchdesk-cursors-')
    const consoles = useFollowingConsoles()
    const relayProcesses = useRelayProcesses()
    let databases = 0

    /** A new, empty store's URL (as `relay --store` takes it). */
    const newStoreUrl = async () =>
      kind === 'sqlite'
        ? `sqlite:${join(tempDir(), 'relay.db')}`
        : await postgres().createDatabase(`cursors_${kind}_${++databases}`)
    const openStore = async (url: string): Promise<RelayStore> =>
      url.startsWith('sqlite:') ? relays.sqliteStore(url.slice('sqlite:'.length)) : relays.postgresStore(url)

    it('answers a page and a stream past the end with 409 and a sentence, stays idle and answers /healthz, and stops on SIGTERM', async () => {
      const url = await newStoreUrl()
      // The token and ten events, written before the relay process opens the store.
      const setup = unwrap(
        url.startsWith('sqlite:')
          ? openSqliteRelayStore(url.slice('sqlite:'.length), { log: silentLogger })
          : await openPostgresStore(url),
      )
      const token = unwrap(await createRelayToken(setup, 'laptop'))
      await fill(setup, 'evt_before', 10)
      const end = unwrap(await getPage(setup)).next
      await setup.close()

      const relay = await relayProcesses(url, { WATCHDESK_WEBHOOK_SECRETS: relaySecret }).ready
      const pid = relay.child.pid!
      // A console following it live (the issue: one follower, then a cursor the store never issued).
      const page = await getJson(`${relay.sync}/sync/events?after=0&limit=100`, token)
      expect(page.status).toBe(200)
      expect(page.body.events).toHaveLength(10)
      const live = await follower(relay.sync, token, page.body.next)

      const pastEnd = bump(end)
      for (const route of ['/sync/events', '/sync/stream']) {
        const refused = await answer(`${relay.sync}${route}?after=${encodeURIComponent(pastEnd)}`, token)
        expect(refused.status, route).toBe(409)
        expect(refused.body).toMatchObject({ problem: 'past-end', anchor: '/sync/anchor' })
        expect(refused.body.error).toMatch(/past the newest event of this relay's store .*re-anchor/)
      }

      // Idle: over a window in which 20 health checks are answered, the relay uses a small share of
      // the wall time (a spinning stream loop takes all of one core).
      const cpuBefore = cpuSeconds(pid)
      const wallBefore = process.hrtime.bigint()
      for (let i = 0; i < 20; i++) {
        const health = await fetch(`${relay.sync}/healthz`)
        expect(health.status).toBe(200)
        await new Promise((r) => setTimeout(r, 50))
      }
      const wall = Number(process.hrtime.bigint() - wallBefore) / 1e9
      const cpu = cpuSeconds(pid) - cpuBefore
      expect(cpu / wall).toBeLessThan(0.5)

      // And still following: a delivery reaches the live stream.
      const framesBefore = live.frames()
      expect(await deliver(relay.webhooks, 'evt_after_refusal')).toBe(200)
      await waitFor(
        () => live.text().includes('evt_after_refusal') || undefined,
        'the live stream to carry it',
      )
      expect(live.frames()).toBeGreaterThan(framesBefore)
      live.close()

      const exited = new Promise<number | null>((r) => relay.child.once('exit', (code) => r(code)))
      relay.child.kill('SIGTERM')
      expect(await exited).toBe(0)
    })

    it('refuses a cursor of another store with 409, and one whose event the store replaced', async () => {
      const a = await openStore(await newStoreUrl())
      const b = await openStore(await newStoreUrl())
      expect(a.identity).not.toBe(b.identity)
      const relayA = await relays.relay(a)
      const relayB = await relays.relay(b)
      const tokenA = unwrap(await createRelayToken(a, 'laptop'))
      const tokenB = unwrap(await createRelayToken(b, 'laptop'))
      await fill(a, 'evt_a', 5)
      await fill(b, 'evt_b', 5)
      const fromA = await getJson(`${relayA.syncUrl}/sync/events?after=0`, tokenA)
      expect(fromA.body.next).toContain(a.identity)
      for (const route of ['/sync/events', '/sync/stream']) {
        const refused = await answer(
          `${relayB.syncUrl}${route}?after=${encodeURIComponent(fromA.body.next)}`,
          tokenB,
        )
        expect(refused.status, route).toBe(409)
        expect(refused.body).toMatchObject({ problem: 'other-store', store: b.identity })
        expect(refused.body.error).toContain(`issued by the relay store ${a.identity}`)
      }
      // The same position and store, but another event's tag: the store holds another event there.
      const [position, identity] = fromA.body.next.split('_')
      const forged = `${position}_${identity}_00000000`
      const replaced = await answer(`${relayA.syncUrl}/sync/events?after=${forged}`, tokenA)
      expect(replaced.status).toBe(409)
      expect(replaced.body.problem).toBe('replaced-event')
      // What the relay issued reads on (nothing new: the same cursor back).
      const again = await getJson(
        `${relayA.syncUrl}/sync/events?after=${encodeURIComponent(fromA.body.next)}`,
        tokenA,
      )
      expect(again).toEqual({ status: 200, body: { events: [], next: fromA.body.next } })
    })

    it('a console following a relay whose store was restored from an older backup re-anchors and receives new events, none twice', async () => {
      const url = await newStoreUrl()
      const store = await openStore(url)
      const token = unwrap(await createRelayToken(store, 'laptop'))
      let relay = await relays.relay(store)
      const syncPort = Number(new URL(relay.syncUrl).port)
      const dataDir = tempDir()
      const backend = await consoles({
        dataDir,
        config: { sources: { office: { url: relay.syncUrl } } },
        secrets: { 'source-token:office': token },
      })
      const local = backend.services.webhooks.store
      const sourced = () =>
        backend.context.db
          .prepare(`SELECT id FROM events WHERE source = 'office' ORDER BY id`)
          .pluck()
          .all() as string[]
      for (let i = 0; i < 20; i++)
        expect(await deliver(`${relay.listenerUrl}/webhooks`, `evt_old_${i}`)).toBe(200)
      await waitFor(() => sourced().length === 20 || undefined, '20 events in the console')

      const backup = await backupOf(url)
      for (let i = 0; i < 10; i++)
        expect(await deliver(`${relay.listenerUrl}/webhooks`, `evt_lost_${i}`)).toBe(200)
      await waitFor(() => sourced().length === 30 || undefined, '30 events in the console')
      // The source's count follows its commit (the rows are readable a moment before it is told).
      const syncedBefore = await waitFor(() => {
        const synced = backend.services.sources.list()[0]!.synced
        return synced >= 30 ? synced : undefined
      }, 'the source to count the 30 events it stored')

      // The relay stops; its store is restored from the backup (10 events older than the console).
      await relay.stop()
      const restored = await openStore(await restoreInto(backup))
      relay = await relays.relay(restored, { port: syncPort })
      await waitFor(
        () => backend.services.sources.list()[0]?.notice ?? undefined,
        'the notice that the console re-anchored',
      )
      const status = backend.services.sources.list()[0]!
      expect(status.notice).toMatch(
        /^relay store was replaced or restored: re-synced from after event evt_old_19 /,
      )

      for (let i = 0; i < 5; i++)
        expect(await deliver(`${relay.listenerUrl}/webhooks`, `evt_new_${i}`)).toBe(200)
      await waitFor(() => sourced().length === 35 || undefined, 'the 5 new events in the console')
      for (let i = 0; i < 5; i++) expect(local.get(`evt_new_${i}`)).toMatchObject({ source: 'office' })
      // Nothing read twice: exactly the 5 new events were synced after the re-anchor.
      await waitFor(
        () => backend.services.sources.list()[0]?.state === 'live' || undefined,
        'the source live again',
      )
      // The count follows the commit, as above: awaited, then exactly the 5 (a re-read would add).
      const syncedAfter = await waitFor(() => {
        const synced = backend.services.sources.list()[0]!.synced
        return synced - syncedBefore >= 5 ? synced : undefined
      }, 'the source to count the 5 new events')
      expect(syncedAfter - syncedBefore).toBe(5)
      expect(backend.services.sources.list()[0]!.notice).toBe(status.notice)
    })

    /** A copy of the store as it is now: a SQLite file, or a pg_dump archive. */
    async function backupOf(url: string): Promise<string> {
      const file = join(tempDir(), kind === 'sqlite' ? 'backup.db' : 'backup.pgdump')
      if (kind === 'sqlite') {
        const db = new Database(url.slice('sqlite:'.length))
        await db.backup(file)
        db.close()
      } else execFileSync(join(postgresBinDir(), 'pg_dump'), ['-Fc', '-f', file, '-d', url])
      return file
    }

    /** The backup restored: over the SQLite file, or into a new PostgreSQL database. Its store URL. */
    async function restoreInto(backup: string): Promise<string> {
      if (kind === 'sqlite') {
        const target = join(tempDir(), 'restored.db')
        copyFileSync(backup, target)
        return `sqlite:${target}`
      }
      const target = await postgres().createDatabase(`cursors_restored_${++databases}`)
      execFileSync(join(postgresBinDir(), 'pg_restore'), ['--no-owner', '-d', target, backup])
      return target
    }
  },
)

const getPage = (store: RelayStore) => store.readAfter('0', 5_000)

/** A position one past `cursor` (a bare position: what an older relay issued). */
function bump(cursor: string): string {
  const parts = cursor.split('.')
  parts[parts.length - 1] = String(Number(parts.at(-1)) + 1)
  return parts.join('.')
}
