import { eventTypes } from '../events'
import { err, ok } from '../result'
import type { Result } from '../result'

/** Spec 2.1 and 8: the url is HTTPS only, the description at most 200 characters. */
export const maxDescriptionLength = 200

export const knownEventTypes: readonly string[] = eventTypes.map((t) => t.type)

/** What an endpoint is created from (the contract's zod schema validates it at the boundary). */
export interface EndpointInput {
  url: string
  events: string[]
  description?: string
}

/** Checks everything the spec states before anything is sent, with one sentence per problem. */
export function checkEndpointInput(input: EndpointInput): Result<EndpointInput> {
  const url = checkHttpsUrl(input.url)
  if (!url.ok) return url
  if (input.events.length === 0)
    return err('bad_request', 'Choose at least one event type for the endpoint to receive.')
  const unknown = input.events.filter((e) => !knownEventTypes.includes(e))
  if (unknown.length > 0) {
    return err(
      'bad_request',
      `Unknown event type${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}. The types are: ${knownEventTypes.join(', ')}.`,
    )
  }
  const description = input.description?.trim() || undefined
  if (description && [...description].length > maxDescriptionLength) {
    return err(
      'bad_request',
      `The description has ${[...description].length} characters; the service accepts at most ${maxDescriptionLength}.`,
    )
  }
  return ok({ url: url.value, events: [...new Set(input.events)], ...(description ? { description } : {}) })
}

export function checkHttpsUrl(raw: string): Result<string> {
  const text = raw.trim()
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return err(
      'bad_request',
      `"${text}" is not a URL. The service delivers webhooks only to an https:// URL.`,
    )
  }
  if (url.protocol !== 'https:') {
    return err(
      'bad_request',
      `The service delivers webhooks only to HTTPS URLs; "${text}" uses ${url.protocol.replace(':', '')}. Put a TLS tunnel or reverse proxy in front of the listener and give its https:// address.`,
    )
  }
  return ok(url.toString())
}

/** The description's length as the form counts it (user-perceived code points). */
export const descriptionLength = (text: string): number => [...text].length
