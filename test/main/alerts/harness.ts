import { controlledNode, hex } from '../../support/rpc-standin'
import { createHmac } from 'node:crypto'
import { createServer } from 'node:http'
import type { IncomingHttpHeaders, Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterEach } from 'vitest'
import { createPoller, resolveTargets } from '../../../src/main/chains'
import type { Poller } from '../../../src/main/chains'
import { createMeters, startAlerts } from '../../../src/main/alerts'
import type { AlertsService } from '../../../src/main/alerts'
import { createStorageHealth, openDatabase } from '../../../src/main/db'
import type { Database } from '../../../src/main/db'
import { silentLogger } from '../../../src/main/log'
import { createPushBus } from '../../../src/main/push'
import { createCommittedEvents } from '../../../src/main/committed'
import { createEventStore, toSummary } from '../../../src/main/webhooks'
import type { CommittedRow, EventParams } from '../../../src/main/webhooks'
import { storedSummarySql, upsertEventSql } from '../../../src/main/webhooks/sql'
import { insertedSummary } from '../../../src/main/webhooks/store'
import type { UpsertedRow } from '../../../src/main/webhooks/sql'
import { groupOf } from '../../../src/shared/events'
import type { EventSummary } from '../../../src/shared/contract/events'
import type { PushBus } from '../../../src/main/push'
import { createMemoryStore } from '../../../src/main/secrets'
import type { SecretStore } from '../../../src/main/secrets'
import { Config } from '../../../src/shared/config'
import type { ConfigInput } from '../../../src/shared/config'
import type { ChainsSnapshot } from '../../../src/shared/contract/chains'
import { unwrap } from '../../../src/shared/result'
import { toDisposable } from '../../../src/shared/disposable'
import { manualClock } from '../../support/clock'
import type { ManualClock } from '../../support/clock'
import { waitFor } from '../../support/wait'

export interface Recorded {
  path: string
  headers: IncomingHttpHeaders
  body: string
  json: any
}

/** A local HTTP server that records every POST (webhook and Slack-shaped channels) and answers 200. */
export function useRecorder(): () => Promise<{ url: string; received: Recorded[] }> {
  const servers: Server[] = []
  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map((s) => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r())))),
    )
  })
  return async () => {
    const received: Recorded[] = []
    const server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8')
        let json: unknown = null
        try {
          json = JSON.parse(body)
        } catch {
          json = null
        }
        received.push({ path: req.url ?? '', headers: req.headers, body, json })
        res.writeHead(200, { 'content-type': 'text/plain' })
        res.end('ok')
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
    servers.push(server)
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received }
  }
}

export const hmac = (secret: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`

export interface Rig {
  clock: ManualClock
  poller: Poller
  alerts: AlertsService
  db: Database
  push: PushBus
  /** Stores events (the listener's upsert, one transaction) and publishes them on the committed-
   * events channel as the commit path does; answers their summaries. */
  commit(events: { id: string; type: string; endpoint?: string }[]): EventSummary[]
  /** Stores events as `commit` does but publishes nothing yet: committed, their notice on the
   * committed-events channel still on its way (a worker's reply not yet taken). */
  store(events: { id: string; type: string; endpoint?: string }[]): EventSummary[]
  /** Runs the poller's timers until the next poll is answered and its round published. */
  nextPoll(): Promise<void>
  /** Moves the clock to `t` in small steps, settling every poll that comes due on the way. */
  advanceTo(t: number): Promise<void>
  stop(): Promise<void>
}

/** The poller and the alerts capability over a real SQLite file, on a clock the test moves. */
export function useAlertsRig(
  tempDir: () => string,
): (config: ConfigInput, secrets?: SecretStore) => Promise<Rig> {
  const rigs: Rig[] = []
  afterEach(async () => {
    for (const rig of rigs.splice(0)) await rig.stop()
  })
  return async (input, secrets = createMemoryStore()) => {
    const config = Config.parse(input)
    const clock = manualClock(Date.parse('2026-03-02T10:00:00Z'))
    const db = unwrap(openDatabase(join(tempDir(), 'watchdesk.db')))
    const push = createPushBus()
    const committed = createCommittedEvents()
    const events = createEventStore(db)
    const listeners = new Set<(s: ChainsSnapshot) => void>()
    const poller = createPoller({
      targets: resolveTargets(config, null),
      scrub: (t) => t,
      clock,
      onRound: (snapshot) => listeners.forEach((l) => l(snapshot)),
    })
    const alerts = startAlerts({
      db,
      config: () => config,
      secrets,
      env: {},
      push,
      log: silentLogger,
      storage: createStorageHealth(db.name, silentLogger, () => clock.now()),
      meters: createMeters(),
      clock,
      onChainsRound: (l) => {
        listeners.add(l)
        return toDisposable(() => listeners.delete(l))
      },
      listener: () => null,
      committed,
      eventsAfter: (seq, limit) => events.after(seq, limit),
      eventSummary: (id) => events.get(id),
      shell: 'electron',
    })
    // Pending callbacks at rest: the alerts' check and the poll loop (one polled chain).
    const atRest = 2
    const settle = async () => {
      await waitFor(() => clock.pending() === atRest + 1, 'the poll to be answered')
      clock.advance(200)
      await alerts.idle()
    }
    poller.start()
    await settle()
    const upsert = db.prepare(upsertEventSql)
    const storedSummary = db.prepare(storedSummarySql)
    const insertAll = db.transaction((rows: EventParams[]) =>
      rows.map((p) => {
        // A listener's delivery brings no relay conflict (the commit transaction defaults these too).
        const delivery = { conflicts: 0, conflict_body: null, ...p }
        const upserted = upsert.get(delivery) as UpsertedRow
        // As the commit path answers: a first delivery is the delivery itself, a redelivery the
        // row as stored.
        const summary =
          upserted.deliveries === 1
            ? insertedSummary(delivery, upserted.seq)
            : toSummary(storedSummary.get(upserted.seq) as CommittedRow)
        return { summary, duplicate: upserted.deliveries > 1 }
      }),
    )
    const storeAll = (list: { id: string; type: string; endpoint?: string }[]) => {
      const at = clock.now()
      return insertAll(
        list.map((e) => ({
          id: e.id,
          type: e.type,
          grp: groupOf(e.type),
          created_at: new Date(at).toISOString(),
          created_ms: at,
          at,
          endpoint: e.endpoint ?? 'wh_rig',
          data_id: null,
          body: Buffer.from(JSON.stringify({ id: e.id, type: e.type, data: {} })),
          data: '{}',
        })),
      )
    }
    const rig: Rig = {
      clock,
      poller,
      alerts,
      db,
      push,
      commit(list) {
        const stored = storeAll(list)
        committed.publish({ origin: { kind: 'listener' }, events: stored })
        return stored.map((s) => s.summary)
      },
      store: (list) => storeAll(list).map((s) => s.summary),
      async nextPoll() {
        while (clock.pending() === atRest) clock.advance(100)
        await settle()
      },
      async advanceTo(t) {
        while (clock.now() < t) {
          clock.advance(Math.min(100, t - clock.now()))
          if (clock.pending() < atRest) await settle()
        }
      },
      async stop() {
        poller.stop()
        await alerts.stop()
        db.close()
      },
    }
    rigs.push(rig)
    return rig
  }
}

/** A Polygon node the tests steer live (its control endpoint): head 5000, no finalized tag. */
export const polygon = () =>
  controlledNode({
    eth_blockNumber: hex(5000),
    eth_getBlockByNumber: (params: unknown[]) =>
      params[0] === 'latest'
        ? {
            number: hex(5000),
            hash: `0x${'ab'.repeat(32)}`,
            parentHash: `0x${'cd'.repeat(32)}`,
            timestamp: hex(Math.floor(Date.parse('2026-03-02T10:00:00Z') / 1000)),
          }
        : { error: { code: -32602, message: 'unknown block tag' } },
    eth_syncing: false,
    web3_clientVersion: 'bor/v2.0.1',
    net_version: '137',
    eth_chainId: hex(137),
  })
