import { join } from 'node:path'
import { z } from 'zod'
import { chainRegistry } from '../../shared/chains/registry'
import { EventCursor, EventFilter } from '../../shared/contract/events'
import { maskUrl } from '../../shared/mask'
import { createAlertStore } from '../alerts'
import { loadConfig, readRuntimeInfo } from '../config'
import { databaseFileName, openDatabase } from '../db'
import type { Database } from '../db'
import { openDatabaseReadOnlyIn } from './common'
import { forwardStoreOn } from '../forward'
import { createEventStore, eventReads } from '../webhooks'
import { latestChainSamples } from '../chains'
import { sourceCursors } from '../sources'
import { readArrivals, readSuspects, toleranceOf } from '../replay'
import { ReplayConfig } from '../../shared/config'
import { createDriftStore, readDriftStatus } from '../drift'
import { DriftConfig } from '../../shared/drift'
import { readClockStatus } from '../clock'
import { readDisablement } from '../disablement'

/** What `watchdesk mcp` answers from: the data dir that a console (desktop app or serve) writes.
 * The MCP server reads it as a second process, read-only and lock-free (WAL lets readers in), so
 * it answers the same whether the app runs or not, and says how old each figure is; the only
 * writes (with --allow-write) go through the same SQL the console's own actions use. */
export interface ReadModel {
  dataDir: string
  db: Database
  close(): void
}

export function openReadModel(
  dataDir: string,
): { ok: true; value: ReadModel } | { ok: false; message: string } {
  const db = openDatabaseReadOnlyIn(dataDir)
  if (!db.ok) return { ok: false, message: db.error }
  return { ok: true, value: { dataDir, db: db.value, close: () => db.value.close() } }
}

/** A tool: its input schema (zod, from the contract where the console has the same method), what
 * it says it does, and its answer as plain JSON. */
export interface McpTool<S extends z.ZodRawShape = z.ZodRawShape> {
  description: string
  input: S
  write?: true
  run(model: ReadModel, args: z.infer<z.ZodObject<S>>, now: number): unknown
}

const tool = <S extends z.ZodRawShape>(t: McpTool<S>): McpTool<S> => t

/** A tool's answer that refuses the call (an unknown target, no stored event among the ids): the
 * client gets it flagged `isError` with this sentence, and a write is logged as failed with it. */
export class Refusal {
  constructor(readonly message: string) {}
}

/** Whether a console runs on this data dir now: figures it writes are live only then. */
function consoleState(dataDir: string) {
  const runtime = readRuntimeInfo(dataDir)
  return runtime
    ? {
        running: true,
        shell: runtime.shell,
        since: runtime.startedAt,
        listening: runtime.listenerUrl !== null,
      }
    : { running: false, shell: null, since: null, listening: false }
}

const origin = (url: string) => maskUrl(url).replace(/\/….*$/, '')

export const readTools = {
  search_events: tool({
    description:
      'Search stored webhook events, newest first, with the Events view’s filters (types, groups, received-at range in ms, id or data-id prefix). Answers summaries; read one in full with get_event.',
    input: {
      filter: EventFilter.optional(),
      after: EventCursor.optional().describe('the `next` of the previous answer, for the next page'),
      limit: z.number().int().min(1).max(200).optional().describe('default 50'),
    },
    run: ({ db }, { filter, after, limit }) => createEventStore(db).list(filter ?? {}, after, limit ?? 50),
  }),
  get_event: tool({
    description:
      'One stored event: its data, deliveries, conflicts, each arrival with its address and replay verdict (first, retry, suspected_replay, with the reason); the raw body (and the differing body of a conflicting redelivery) only when includeBody is true.',
    input: { id: z.string().min(1).max(255), includeBody: z.boolean().optional() },
    run: ({ db, dataDir }, { id, includeBody }) => {
      const stored = createEventStore(db).get(id)
      if (!stored) return { found: false, id }
      const config = loadConfig(dataDir)
      const tolerance = toleranceOf(config.ok ? config.value.config.replay : ReplayConfig.parse({}))
      const event = { ...stored, arrivals: readArrivals(db, stored, tolerance) }
      if (includeBody) return { found: true, event }
      const { body: _body, conflictBody, ...rest } = event
      return {
        found: true,
        event: rest,
        body: 'omitted: ask with includeBody: true',
        ...(conflictBody !== null ? { conflictBody: 'omitted: ask with includeBody: true' } : {}),
      }
    },
  }),
  replay_suspects: tool({
    description:
      'Stored event ids redelivered at a time no retry of the service explains (after a 200), or older than the whole retry ladder: suspected replays of captured traffic, newest first, with the address each came from and the reason.',
    input: {
      hours: z
        .number()
        .int()
        .min(1)
        .max(24 * 90)
        .optional()
        .describe('how far back (default 24)'),
    },
    run: ({ db }, { hours }, now) => {
      const since = now - (hours ?? 24) * 3_600_000
      const { count, recent } = readSuspects(db, since, 50)
      return { since: new Date(since).toISOString(), count, suspects: recent }
    },
  }),
  chain_status: tool({
    description:
      'Each chain’s last recorded health (status, head, lag in blocks and seconds, latency, error) with the time it was sampled; live only while a console runs (samples are written every 30 s).',
    input: { serviceId: z.number().int().positive().optional() },
    run: ({ db, dataDir }, { serviceId }, now) => {
      const bySample = latestChainSamples(db)
      const chains = chainRegistry
        .filter((c) => serviceId === undefined || c.serviceId === serviceId)
        .map((c) => {
          const s = bySample.get(c.serviceId)
          if (!s) return { serviceId: c.serviceId, name: c.name, status: 'no data recorded yet' }
          return {
            serviceId: c.serviceId,
            name: c.name,
            status: s.status,
            head: s.head,
            lagBlocks: s.lag_blocks,
            lagSeconds: s.lag_ms === null ? null : Number(s.lag_ms) / 1000,
            latencyMs: s.latency_ms,
            error: s.error,
            sampledAt: new Date(Number(s.t)).toISOString(),
            ageSeconds: Math.round((now - Number(s.t)) / 1000),
          }
        })
      return { console: consoleState(dataDir), chains }
    },
  }),
  clock_status: tool({
    description:
      "This machine's clock against the chains' block stamps, the RPC gateway's and the payments API's HTTP Date and webhooks' created_at, as the console last published it: state (ok, off, unconfirmed, disagree, unknown), offset in seconds (positive: ahead), the correction applied to block ages, each reference, and the fix.",
    input: {},
    run: ({ dataDir }, _args, now) => {
      const status = readClockStatus(dataDir)
      return {
        console: consoleState(dataDir),
        clock: status && {
          ...status,
          changedAt: status.at,
          changedSecondsAgo: Math.round((now - Date.parse(status.at)) / 1000),
        },
        note: status ? null : 'No console has published a clock status in this data dir yet.',
      }
    },
  }),
  incidents: tool({
    description: 'Alert incidents, newest first: open ones only with open: true.',
    input: {
      open: z.boolean().optional(),
      serviceId: z.number().int().positive().optional(),
      limit: z.number().int().min(1).max(200).optional(),
    },
    run: ({ db }, { open, serviceId, limit }) => ({
      incidents: createAlertStore(db).incidents({ open, serviceId, limit: limit ?? 50 }),
    }),
  }),
  alert_log: tool({
    description: 'Every alert sent, failed or muted (and every MCP write), newest first.',
    input: {
      limit: z.number().int().min(1).max(500).optional(),
      incidentId: z.number().int().optional(),
    },
    run: ({ db }, { limit, incidentId }) => ({ log: createAlertStore(db).log(limit ?? 50, incidentId) }),
  }),
  listener_status: tool({
    description:
      'The webhook listener: whether a console runs and listens, events received in the last minute and hour, the last event and its age, recent rejections.',
    input: {},
    run: ({ db, dataDir }, _args, now) => {
      const events = eventReads(db)
      const count = (since: number) => events.countSince(since)
      const last = events.last()
      return {
        console: consoleState(dataDir),
        eventsLastMinute: count(now - 60_000),
        eventsLastHour: count(now - 3_600_000),
        lastEvent: last
          ? {
              id: last.id,
              type: last.type,
              receivedAt: new Date(last.received_at).toISOString(),
              ageSeconds: Math.round((now - last.received_at) / 1000),
            }
          : null,
        recentRejections: createEventStore(db).recentRejections(20),
      }
    },
  }),
  payload_shapes: tool({
    description:
      'The payload drift watch: each event type’s learned data shape (events read, fields), and the shape changes seen (fields added, removed or retyped, the first event that showed them, acknowledged or still warning), newest first; with type, that type’s fields and their JSON types.',
    input: { type: z.string().min(1).max(200).optional() },
    run: ({ db, dataDir }, { type }) => {
      const config = loadConfig(dataDir)
      const cfg = config.ok ? config.value.config.drift : DriftConfig.parse({})
      const status = readDriftStatus(db, cfg)
      if (type === undefined) return { console: consoleState(dataDir), ...status }
      const shape = createDriftStore(db).shape(type)
      return {
        console: consoleState(dataDir),
        type,
        events: shape?.events ?? 0,
        fields: shape
          ? [...shape.fields].map(([path, f]) => ({ path, types: [...f.types].sort(), present: f.present }))
          : [],
        drifts: status.drifts.filter((d) => d.type === type),
      }
    },
  }),
  forward_status: tool({
    description: 'Forward targets (name and origin only) with what is queued and failing for each.',
    input: {},
    run: ({ db, dataDir }) => {
      const config = loadConfig(dataDir)
      const targets = config.ok ? config.value.config.forward.targets : {}
      // The read model's own read-only connection: a status read opens nothing writable.
      const counts = forwardStoreOn(db).openCounts()
      return {
        console: consoleState(dataDir),
        targets: Object.entries(targets).map(([name, t]) => ({
          name,
          origin: origin(t.url),
          enabled: t.enabled !== false,
          pending: counts.get(name)?.pending ?? 0,
          failing: counts.get(name)?.failing ?? 0,
        })),
      }
    },
  }),
  endpoint_deadlines: tool({
    description:
      'Endpoint disablement: the outages of the listener recorded, the deadline when the first deliveries of one under way use their 5th retry, deliveries already marked failed, and the open endpoint.* incidents naming each endpoint.',
    input: {},
    run: ({ db, dataDir }, _args, now) => {
      const config = loadConfig(dataDir)
      const lead = (config.ok ? config.value.config.alerts.disablementLeadMinutes : 120) * 60_000
      return {
        console: consoleState(dataDir),
        ...readDisablement(db, now, lead),
        incidents: createAlertStore(db)
          .incidents({ open: true, limit: 50 })
          .filter((i) => i.rule.startsWith('endpoint.')),
      }
    },
  }),
  relay_sources: tool({
    description: 'The relays this console follows: name, origin, and the cursor it has synced to and when.',
    input: {},
    run: ({ db, dataDir }) => {
      const config = loadConfig(dataDir)
      const sources = config.ok ? config.value.config.sources : {}
      const cursors = new Map(sourceCursors(db).map((r) => [r.name, r]))
      return {
        sources: Object.entries(sources).map(([name, s]) => ({
          name,
          origin: origin(s.url),
          enabled: s.enabled !== false,
          syncedTo: cursors.get(name)?.cursor ?? null,
          syncedAt: cursors.has(name) ? new Date(cursors.get(name)!.at).toISOString() : null,
        })),
      }
    },
  }),
}

/** Opened only with `watchdesk mcp --allow-write`; each call is written to the alert log with its
 * arguments before its answer. */
export const writeTools = {
  replay_events: tool({
    description:
      'Queue stored events for a configured forward target again (the forward outbox): a running console or `watchdesk listen` delivers them.',
    write: true,
    input: { ids: z.array(z.string().min(1).max(255)).min(1).max(1000), target: z.string().min(1).max(100) },
    run: ({ dataDir }, { ids, target }, now) => {
      const config = loadConfig(dataDir)
      const targets = config.ok ? config.value.config.forward.targets : {}
      if (!config.ok) return new Refusal(`Nothing replayed: ${config.error.message}`)
      if (!Object.hasOwn(targets, target))
        return new Refusal(
          `No forward target "${target}": configured targets are ${Object.keys(targets).join(', ') || 'none'}.`,
        )
      const queued = withWritableDb(dataDir, (db) => forwardStoreOn(db).enqueueIds(ids, target, now))
      if (queued.length === 0)
        return new Refusal(
          `Nothing replayed: none of the ${ids.length} ids is a stored event (search_events lists them).`,
        )
      const missing = new Set(ids).size - queued.length
      return missing > 0
        ? { queued: queued.length, target, notStored: `${missing} of the ids are no stored event` }
        : { queued: queued.length, target }
    },
  }),
  mute_alerts: tool({
    description: 'Mute alerts for some minutes (all chains, or the ones given): they are recorded, not sent.',
    write: true,
    input: {
      minutes: z.number().int().min(1).max(10_080),
      serviceIds: z.array(z.number().int().positive()).max(12).optional(),
      reason: z.string().max(200).optional(),
    },
    run: ({ dataDir }, { minutes, serviceIds, reason }, now) =>
      withWritableDb(dataDir, (db) => {
        const mute = createAlertStore(db).addMute(
          {
            from: now,
            to: now + minutes * 60_000,
            chains: serviceIds ?? null,
            reason: reason ?? 'muted over MCP',
            source: 'mcp',
          },
          now,
        )
        return { muted: true, until: new Date(mute.to).toISOString(), chains: mute.chains }
      }),
  }),
}

/** A short-lived writable connection for one write: the read model stays read-only. */
export function withWritableDb<T>(dataDir: string, write: (db: Database) => T): T {
  const db = openDatabase(join(dataDir, databaseFileName))
  if (!db.ok) throw new Error(db.error.message)
  try {
    return write(db.value)
  } finally {
    db.value.close()
  }
}

/** The audit line of a write call: who (mcp), what (the tool), with which arguments, and for a
 * failed call why. */
export function recordWrite(
  dataDir: string,
  name: string,
  args: unknown,
  outcome: { ok: true } | { ok: false; message: string },
  now: number,
) {
  withWritableDb(dataDir, (db) =>
    createAlertStore(db).record(
      {
        t: now,
        rule: 'mcp.write',
        subject: `mcp:${name}`,
        serviceId: null,
        kind: 'event',
        severity: 'info',
        title: `MCP ${name}`,
        body: JSON.stringify(args),
        incidentId: null,
        durationMs: null,
      },
      'mcp',
      outcome.ok ? 'sent' : 'failed',
      outcome.ok ? JSON.stringify(args) : `${outcome.message} Arguments: ${JSON.stringify(args)}`,
    ),
  )
}
