/** Test events the operator sends to this listener (directly, or through the public URL in front
 * of it) and the public URL's reachability check: the listener service's outward-facing calls. */
import type { PublicUrlState, TestDelivery } from '../../shared/contract/payments'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { answeredByListener, explainElsewhere, explainFailure, explainPath, probe } from './public-url'
import type { SecretsCache } from './secrets-cache'
import { sampleEnvelope, sendTestEvent } from './send'
import type { SentTestEvent } from './send'
import type { EventStore } from './store'
import { signBody } from './verify'

/** What the calls need of the running listener: asked each time, so a stopped one is told as such. */
export interface TestDeliveryDeps {
  /** The listener's base URL while it listens, and why not otherwise. */
  address(): { url: string | null; problem: { message: string } | null }
  secrets: SecretsCache
  store: EventStore
  /** Sent in the listener's answers: tells this listener from another receiver. */
  identity: string
}

/** Signs a sample event with a configured secret (that endpoint's, or the first) and posts it here. */
export async function sendTest(
  deps: TestDeliveryDeps,
  type: string,
  endpoint?: string,
): Promise<Result<SentTestEvent & { endpoint: string }>> {
  const { url, problem } = deps.address()
  if (url === null)
    return err('unavailable', `The webhook listener is not running: ${problem?.message ?? 'it has stopped.'}`)
  const chosen = endpoint ?? deps.secrets.firstEndpoint()
  const secret = chosen ? deps.secrets.secretOf(chosen) : null
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
}

/** Signs a test event with the endpoint's secret and posts it to the public URL, as the service
 * would; `arrivedAt` is set only when that very event (its id) was stored here. */
export async function sendThrough(
  deps: TestDeliveryDeps,
  publicUrl: string,
  type: string,
  endpoint: string,
  env?: NodeJS.ProcessEnv,
): Promise<TestDelivery> {
  const { url, problem } = deps.address()
  const none = { eventId: null, url: publicUrl, sentAt: null, arrivedAt: null, status: null }
  const secret = deps.secrets.secretOf(endpoint)
  if (url === null)
    return {
      ...none,
      outcome: 'not_sent',
      message: `No test event was sent: the webhook listener is not running (${problem?.message ?? 'it has stopped'}).`,
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
  const arrivedAt = await arrival(deps.store, envelope.id)
  if (arrivedAt !== null)
    return {
      ...sent,
      arrivedAt,
      status: answer.status,
      outcome: 'arrived',
      message: `It (${type}) went through ${target.host} and reached this console's listener, signed with the new secret: the service's deliveries will too.`,
      fix: null,
    }
  const ours = answeredByListener(answer.headers, deps.identity)
  return {
    ...sent,
    arrivedAt: null,
    status: answer.status,
    outcome: ours ? (answer.status === 404 ? 'path' : 'refused') : 'elsewhere',
    ...explainElsewhere(target, answer, url, ours),
  }
}

/** When the event was stored here. The listener answers after the commit, but a proxy may answer
 * before forwarding: wait a little. */
async function arrival(store: EventStore, id: string): Promise<number | null> {
  let arrivedAt = store.get(id)?.receivedAt ?? null
  for (let waited = 0; arrivedAt === null && waited < 2_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    arrivedAt = store.get(id)?.receivedAt ?? null
  }
  return arrivedAt
}

/** Whether the public URL reaches this listener now (a HEAD answered with its identity). */
export async function checkPublicUrl(
  deps: TestDeliveryDeps,
  publicUrl: string,
  env?: NodeJS.ProcessEnv,
): Promise<PublicUrlState> {
  const { url } = deps.address()
  const target = new URL(publicUrl)
  const checkedAt = Date.now()
  const answer = await probe(target, { method: 'HEAD', env, timeoutMs: 5_000 })
  const unreachable = (cause: NonNullable<PublicUrlState['cause']>, why: { message: string; fix: string }) =>
    ({ url: publicUrl, state: 'unreachable', cause, checkedAt, ...why }) as const
  if (answer.kind === 'failed') return unreachable(answer.category, explainFailure(target, answer, url))
  const ours = answeredByListener(answer.headers, deps.identity)
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
}
