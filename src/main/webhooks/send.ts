import { randomBytes } from 'node:crypto'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { Envelope } from './verify'
import { signBody } from './verify'

/** A sample envelope of the type, marked as a test. Funding types get the spec's 2.3 shape; the
 * spec shows no other payload, so other types carry only a test marker. */
export function sampleEnvelope(type: string, now = new Date()): Envelope {
  const suffix = randomBytes(8).toString('hex')
  const data: Record<string, unknown> = type.startsWith('funding.')
    ? {
        id: `fund_test_${suffix}`,
        status: type === 'funding.completed' ? 'completed' : type.slice('funding.'.length),
        amount: 1000,
        currency: 'USD',
        target_amount: 998.75,
        target_currency: 'USDC',
      }
    : { test: true }
  return { id: `evt_test_${suffix}`, type, created_at: now.toISOString().replace(/\.\d{3}Z$/, 'Z'), data }
}

export interface SendTestEventOptions {
  /** The listener's webhook URL (`http://127.0.0.1:7421/webhooks[/<endpoint id>]`); a bare
   * origin gets `/webhooks` appended. */
  url: string
  /** The endpoint secret exactly as issued (`whsec_…`). */
  secret: string
  type: string
  /** Overrides the sample envelope (the demo and tests send their own). */
  envelope?: Envelope
  timeoutMs?: number
}

export interface SentTestEvent {
  id: string
  status: number
  url: string
  answer: string
}

/** Signs a sample envelope and posts it, like a payments dashboard's "send test webhook". */
export async function sendTestEvent(options: SendTestEventOptions): Promise<Result<SentTestEvent>> {
  let url: URL
  try {
    url = new URL(options.url)
  } catch {
    return err(
      'bad_request',
      `"${options.url}" is not a URL; pass the listener's webhook URL, e.g. http://127.0.0.1:7421/webhooks.`,
    )
  }
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/webhooks'
  const envelope = options.envelope ?? sampleEnvelope(options.type)
  const body = JSON.stringify(envelope)
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': signBody(options.secret, body) },
      body,
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    })
    return ok({
      id: envelope.id,
      status: response.status,
      url: url.toString(),
      answer: await response.text(),
    })
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message
    return err(
      'unavailable',
      `The listener at ${url} did not answer (${cause}). Is watchdesk running, and is this its listener URL?`,
    )
  }
}
