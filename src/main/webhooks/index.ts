import type { Disposable } from '../../shared/disposable'
import type { PruneReply, PruneStatement } from './commit-protocol'
import type { ListenerStatus } from '../../shared/contract/events'
import { authorizationRequestType } from '../../shared/events'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { AppContext } from '../context'
import { workerCommitter } from './committer'
import { createIngest } from './ingest'
import { startListener } from './listener'
import type { ListenerCounters, ListenerHooks } from './listener'
import { loadSecretsCache } from './secrets-cache'
import { randomBytes } from 'node:crypto'
import type { PublicUrlState, TestDelivery } from '../../shared/contract/payments'
import { answeredByListener, explainElsewhere, explainFailure, explainPath, probe } from './public-url'
import { sampleEnvelope, sendTestEvent } from './send'
import { signBody } from './verify'
import type { SentTestEvent } from './send'
import { ActivityWindow, LatencyWindow, recordNew } from './stats'
import { createEventStore } from './store'
import type { EventStore } from './store'

export { sendTestEvent, sampleEnvelope } from './send'
export { listenerIdentityHeader, probe, explainFailure } from './public-url'
export type { SendTestEventOptions, SentTestEvent } from './send'
export { signBody, verifySignature, parseEnvelope } from './verify'
export type { Envelope } from './verify'
export { createEventStore, filterClause } from './store'
export type { EventHead, EventStore } from './store'
// Parts a receiver is built from (the relay: the same listener, ingest and commit path over another store).
export { createIngest, createBatchedPublisher } from './ingest'
export { startListener } from './listener'
export type { ListenerCounters, ListenerSettings } from './listener'
export { loadSecretsCache } from './secrets-cache'
export { ActivityWindow, LatencyWindow, recordNew } from './stats'
export { resultOf, workerCommitter } from './committer'
export type { CommitResult, Committer } from './committer'
export type { CommitReply, ItemResult, PruneReply, StorageFailure } from './commit-protocol'
export type { CommittedRow, EventParams, EventRow } from './sql'
export { parseTime, toDetail, toSummary } from './store'
export type { DetailRow } from './store'

export interface WebhookService {
  store: EventStore
  /** Base URL of the listener (`http://127.0.0.1:7421`); webhooks go to `<url>/webhooks`. Null
   * when the listener could not start: `status().problem` says why and what to do. */
  url: string | null
  status(): ListenerStatus
  /** Signs a sample event with a configured secret (that endpoint's, or the first) and posts it here. */
  sendTest(type: string, endpoint?: string): Promise<Result<SentTestEvent & { endpoint: string }>>
  /** The secrets deliveries are verified with, by endpoint id (for the forwarder, which passes the
   * service's signature through by recomputing it; never shown or logged). */
  webhookSecrets(): ReadonlyMap<string, Buffer>
  /** Called when those secrets changed (the forwarder re-signs with them). */
  onSecretsChange(listener: () => void): Disposable
  /** Signs a test event with the endpoint's secret and posts it to the public URL (the tunnel or
   * reverse proxy in front of this listener), as the service would; `arrivedAt` is set only when
   * that very event (its id) was stored here. */
  sendThrough(
    publicUrl: string,
    type: string,
    endpoint: string,
    env?: NodeJS.ProcessEnv,
  ): Promise<TestDelivery>
  /** Whether the public URL reaches this listener now (a HEAD answered with its identity). */
  checkPublicUrl(publicUrl: string, env?: NodeJS.ProcessEnv): Promise<PublicUrlState>
  /** A retention batch through the commit worker, between commits (src/main/db/retention.ts). */
  prune(statements: PruneStatement[]): Promise<PruneReply>
  stop(): Promise<void>
}

export interface WebhookOptions {
  /** `--listener-port`, over `listener.port`. */
  port?: number
  /** Run in the commit transaction after each event (the forward outbox's enqueue). */
  afterEvent?: string[]
  relayAuthorization?: ListenerHooks['relayAuthorization']
}

const aliveEveryMs = 15_000
const origin = { kind: 'listener' } as const
const probeEveryMs = 2_000

/** Listener → verify → deduplicate → group commit → push, for the app and serve mode. The store
 * and the committer always start; a listener that cannot bind (port taken, TLS files missing)
 * becomes a status (`listening: false` with the problem), so the rest of the console still runs. */
export async function startWebhooks(ctx: AppContext, options: WebhookOptions = {}): Promise<WebhookService> {
  const log = ctx.log.child({ part: 'webhooks' })
  const store = createEventStore(ctx.db)
  const secrets = await loadSecretsCache(ctx.secrets, log)
  const counters: ListenerCounters = { accepted: 0, duplicates: 0, rejected: 0, conflicts: 0, unavailable: 0 }
  const latency = new LatencyWindow()
  const authorizationLatency = new LatencyWindow()
  const activity = new ActivityWindow(Date.now())
  // Seeded before the listener starts, so no event is counted twice; a restart keeps the hour's counts.
  try {
    const seedFrom = Date.now() - 3_600_000
    activity.seed(store.receivedPerSecond(seedFrom), seedFrom)
  } catch (error) {
    ctx.storage.failed('listener activity', error)
  }
  const committer = workerCommitter(ctx.db.name, {
    afterEvent: options.afterEvent,
    onRestart: (failure) => log.warn('commit worker stopped; starting it again', { ...failure }),
  })
  // Committed batches go to the committed-events channel (lossless); the screen's push is one of its subscribers.
  const ingest = createIngest(
    committer,
    log,
    (events) => (recordNew(activity, events), ctx.committed.publish({ origin, events })),
    {
      committed: () => ctx.storage.committed(),
      failed: (failure) => ctx.storage.failed('webhook commit', failure),
    },
  )
  let changed = false
  const identity = randomBytes(12).toString('hex')
  const config = ctx.config().listener
  const listener = await startListener(
    {
      host: config.host,
      port: options.port ?? config.port,
      maxBodyBytes: config.maxBodyBytes,
      headersTimeoutMs: config.headersTimeoutMs,
      bodyTimeoutMs: config.bodyTimeoutMs,
      tls: config.tls,
      authorizationAnswer: () => ctx.config().listener.authorizationAnswer,
      identity,
    },
    {
      ingest,
      secrets,
      counters,
      relayAuthorization: options.relayAuthorization,
      answered(ms, type) {
        latency.record(ms)
        if (type !== null) ctx.meters.committed(ms)
        if (type === authorizationRequestType) authorizationLatency.record(ms)
        changed = true
      },
      rejected(rejection) {
        ctx.meters.rejected(rejection.status)
        ingest.reject(rejection)
        changed = true
        log.debug('webhook rejected', { ...rejection })
      },
    },
  )
  const running = listener.ok ? listener.value : null
  const problem = listener.ok ? null : listener.error.message
  const url = running?.url ?? null
  ctx.urls.listener = url
  ctx.urls.listenerProblem = listener.ok ? null : listener.error
  // A run marks when the listener was up, for the outages (and expected redeliveries) view. On a
  // full disk it is recorded later, once the database takes writes again.
  let run: number | null = null
  const startRun = () => {
    if (!running || run !== null) return
    try {
      run = store.startRun(Date.now())
    } catch (error) {
      ctx.storage.failed('listener run start', error)
    }
  }
  startRun()
  const reading = <T>(what: string, read: () => T, fallback: T): T => {
    try {
      return read()
    } catch (error) {
      ctx.storage.failed(what, error)
      return fallback
    }
  }
  const status = (): ListenerStatus => ({
    listening: running !== null,
    url,
    problem,
    endpoints: secrets.endpoints(),
    secretsProblem: secrets.problem(),
    ...counters,
    latency: latency.summary(),
    authorizationLatency: authorizationLatency.summary(),
    activity: activity.summary(Date.now()),
    storage: ctx.storage.status(),
    recentRejections: reading('listener rejections', () => store.recentRejections(50), []),
    outages: reading('listener outages', () => store.outages(10, 2_000), []),
  })
  // Every 15 s the run is marked alive through the worker (no fsync on this thread); while the
  // database cannot commit, the same small write probes every 2 s, so the status turns back to ok
  // (and the listener to 200s) within seconds of the disk or the lock freeing, without a delivery.
  let lastMark = Date.now()
  let marking = false
  const alive = setInterval(() => {
    const now = Date.now()
    const faulted = ctx.storage.status().state !== 'ok'
    if (marking || now - lastMark < (faulted ? probeEveryMs : aliveEveryMs)) return
    marking = true
    lastMark = now
    void committer
      .alive(run, now)
      .then((failure) => {
        if (failure) return ctx.storage.failed('listener alive mark', failure)
        ctx.storage.committed()
        startRun()
      })
      .finally(() => (marking = false))
  }, probeEveryMs / 2)
  alive.unref()
  const offStorage = ctx.storage.onChange(() => (changed = true))
  // Counts of the last minute and hour fall as time passes, with no delivery to mark a change:
  // they are compared each second too, so a quiet listener never shows an old rate as current.
  let pushedCounts = ''
  const pushStatus = setInterval(() => {
    const a = activity.summary(Date.now())
    const counts = `${a.lastMinute}/${a.lastHour}`
    if (!changed && counts === pushedCounts) return
    changed = false
    pushedCounts = counts
    try {
      ctx.push.publish('events.listener', status())
    } catch (error) {
      log.error('pushing the listener status failed', { error })
    }
  }, 1000)
  pushStatus.unref()
  if (running) log.info('webhook listener started', { url, endpoints: secrets.endpoints().length })
  else log.error('webhook listener not running; stored events stay available', { problem })

  return {
    store,
    url,
    status,
    webhookSecrets: () => secrets.all(),
    onSecretsChange: (listener) => secrets.onChange(listener),
    prune: (statements) => committer.prune!(statements),
    async sendTest(type, endpoint) {
      if (url === null) return err('unavailable', `The webhook listener is not running: ${problem}`)
      const chosen = endpoint ?? secrets.firstEndpoint()
      const secret = chosen ? secrets.secretOf(chosen) : null
      if (!chosen || !secret) {
        return err(
          'not_found',
          endpoint
            ? `No webhook secret is stored for endpoint ${endpoint}. Pick another endpoint, or create it again to get a secret.`
            : 'No webhook secret is configured to sign a test event. Create a webhook endpoint, or set WATCHDESK_WEBHOOK_SECRETS.',
        )
      }
      const target = endpoint ? `${url}/webhooks/${encodeURIComponent(endpoint)}` : `${url}/webhooks`
      const sent = await sendTestEvent({ url: target, secret, type })
      return sent.ok ? ok({ ...sent.value, endpoint: chosen }) : sent
    },
    async sendThrough(publicUrl, type, endpoint, env) {
      const none = { eventId: null, url: publicUrl, sentAt: null, arrivedAt: null, status: null }
      const secret = secrets.secretOf(endpoint)
      if (url === null)
        return {
          ...none,
          outcome: 'not_sent',
          message: `No test event was sent: the webhook listener is not running (${problem}).`,
          fix: null,
        }
      if (!secret)
        return {
          ...none,
          outcome: 'not_sent',
          message: `No test event was sent: the listener has no secret for endpoint ${endpoint}, so it could not verify one.`,
          fix: 'Make the keychain reachable, then connect again.',
        }
      const target = new URL(publicUrl)
      const envelope = sampleEnvelope(type)
      const body = JSON.stringify(envelope)
      const sentAt = Date.now()
      const answer = await probe(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': signBody(secret, body) },
        body,
        env,
      })
      const sent = { eventId: envelope.id, url: target.toString(), sentAt }
      if (answer.kind === 'failed')
        return {
          ...sent,
          arrivedAt: null,
          status: null,
          outcome: answer.category,
          ...explainFailure(target, answer, url),
        }
      // The listener answers after the commit, but a proxy may answer before forwarding: wait a little.
      let arrivedAt = store.get(envelope.id)?.receivedAt ?? null
      for (let waited = 0; arrivedAt === null && waited < 2_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        arrivedAt = store.get(envelope.id)?.receivedAt ?? null
      }
      if (arrivedAt !== null)
        return {
          ...sent,
          arrivedAt,
          status: answer.status,
          outcome: 'arrived',
          message: `It (${type}) went through ${target.host} and reached this console's listener, signed with the new secret: the service's deliveries will too.`,
          fix: null,
        }
      const ours = answeredByListener(answer.headers, identity)
      return {
        ...sent,
        arrivedAt: null,
        status: answer.status,
        outcome: ours ? (answer.status === 404 ? 'path' : 'refused') : 'elsewhere',
        ...explainElsewhere(target, answer, url, ours),
      }
    },
    async checkPublicUrl(publicUrl, env) {
      const target = new URL(publicUrl)
      const checkedAt = Date.now()
      const answer = await probe(target, { method: 'HEAD', env, timeoutMs: 5_000 })
      const unreachable = (
        cause: NonNullable<PublicUrlState['cause']>,
        why: { message: string; fix: string },
      ) => ({ url: publicUrl, state: 'unreachable', cause, checkedAt, ...why }) as const
      if (answer.kind === 'failed') return unreachable(answer.category, explainFailure(target, answer, url))
      const ours = answeredByListener(answer.headers, identity)
      // The listener answers a HEAD on a webhook path with 204 and any other path with 404.
      if (ours && answer.status === 404) return unreachable('path', explainPath(target, url))
      if (ours)
        return {
          url: publicUrl,
          state: 'reachable',
          cause: null,
          checkedAt,
          message: `${target.host} forwards to this console's listener.`,
          fix: null,
        }
      return unreachable('elsewhere', {
        message: `${target.host} answered ${answer.status}, but not from this console's listener: another receiver answered, so the tunnel or proxy forwards somewhere else.`,
        fix: `Point the tunnel or proxy at ${url ? `${url}/webhooks` : "this console's listener"}.`,
      })
    },
    async stop() {
      clearInterval(alive)
      offStorage()
      clearInterval(pushStatus)
      await running?.close()
      await ingest.drain()
      await committer.close()
      secrets.stop()
      try {
        if (run !== null) store.stopRun(run, Date.now())
      } catch (error) {
        ctx.storage.failed('listener run stop', error)
      }
      ctx.urls.listener = null
    },
  }
}
