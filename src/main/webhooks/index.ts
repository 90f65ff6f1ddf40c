import type { ListenerStatus } from '../../shared/contract/events'
import { authorizationRequestType } from '../../shared/events'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { AppContext } from '../context'
import { workerCommitter } from './committer'
import { createBatchedPublisher, createIngest } from './ingest'
import { startListener } from './listener'
import type { ListenerCounters } from './listener'
import { loadSecretsCache } from './secrets-cache'
import { sendTestEvent } from './send'
import type { SentTestEvent } from './send'
import { LatencyWindow } from './stats'
import { createEventStore } from './store'
import type { EventStore } from './store'

export { sendTestEvent, sampleEnvelope } from './send'
export type { SendTestEventOptions, SentTestEvent } from './send'
export { signBody, verifySignature, parseEnvelope } from './verify'
export type { Envelope } from './verify'
export { createEventStore } from './store'
export type { EventStore } from './store'

export interface WebhookService {
  store: EventStore
  /** Base URL of the listener (`http://127.0.0.1:7421`); webhooks go to `<url>/webhooks`. */
  url: string
  status(): ListenerStatus
  /** Signs a sample event with a configured secret (that endpoint's, or the first) and posts it here. */
  sendTest(type: string, endpoint?: string): Promise<Result<SentTestEvent & { endpoint: string }>>
  stop(): Promise<void>
}

export interface WebhookOptions {
  /** `--listener-port`, over `listener.port`. */
  port?: number
}

const aliveEveryMs = 15_000

/** Listener → verify → deduplicate → group commit → push, for the app and serve mode. */
export async function startWebhooks(
  ctx: AppContext,
  options: WebhookOptions = {},
): Promise<Result<WebhookService>> {
  const log = ctx.log.child({ part: 'webhooks' })
  const store = createEventStore(ctx.db)
  const secrets = await loadSecretsCache(ctx.secrets, log)
  const counters: ListenerCounters = { accepted: 0, duplicates: 0, rejected: 0 }
  const latency = new LatencyWindow()
  const authorizationLatency = new LatencyWindow()
  const publisher = createBatchedPublisher((payload) => ctx.push.publish('events.appended', payload))
  const committer = workerCommitter(ctx.db.name)
  const ingest = createIngest(committer, log, (summaries) => publisher.add(summaries))
  let changed = false
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
    },
    {
      ingest,
      secrets,
      counters,
      answered(ms, type) {
        latency.record(ms)
        if (type === authorizationRequestType) authorizationLatency.record(ms)
        changed = true
      },
      rejected(rejection) {
        ingest.reject(rejection)
        changed = true
        log.debug('webhook rejected', { ...rejection })
      },
    },
  )
  if (!listener.ok) {
    secrets.stop()
    await committer.close()
    return listener
  }
  const { url } = listener.value
  ctx.urls.listener = url
  const run = store.startRun(Date.now())
  const status = (): ListenerStatus => ({
    listening: true,
    url,
    endpoints: secrets.endpoints(),
    secretsProblem: secrets.problem(),
    ...counters,
    latency: latency.summary(),
    authorizationLatency: authorizationLatency.summary(),
    recentRejections: store.recentRejections(50),
    outages: store.outages(10, 2_000),
  })
  const alive = setInterval(() => store.markAlive(run, Date.now()), aliveEveryMs)
  alive.unref()
  const pushStatus = setInterval(() => {
    if (!changed) return
    changed = false
    ctx.push.publish('events.listener', status())
  }, 1000)
  pushStatus.unref()
  log.info('webhook listener started', { url, endpoints: secrets.endpoints().length })

  return ok({
    store,
    url,
    status,
    async sendTest(type, endpoint) {
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
    async stop() {
      clearInterval(alive)
      clearInterval(pushStatus)
      await listener.value.close()
      await ingest.drain()
      await committer.close()
      publisher.stop()
      secrets.stop()
      try {
        store.stopRun(run, Date.now())
      } catch (error) {
        log.warn('could not record the listener stop', { error })
      }
      ctx.urls.listener = null
    },
  })
}
