import { inert } from '../../shared/inert'
import { maskSecret } from '../../shared/mask'
import { kindOfCode, operations, serviceErrorOf } from '../../shared/payments'
import { err } from '../../shared/result'
import type { KeyKind, Operation } from '../../shared/payments'
import type { ApiError, Err } from '../../shared/result'

/** The call that failed, as its sentence names it. */
interface FailedCall {
  operation: Operation
  method: string
  path: string
}

/** What a failure's sentence may name: the key (masked), the business, the base URL, how often
 * the call was tried. */
export interface FailureContext {
  key: { name: string; secret: string; kind: KeyKind }
  businessId: string | null
  base: string
  maxAttempts: number
}

/** An answer the service gave (any status): what the sentence quotes. */
export interface Answer {
  status: number
  statusText: string
  text: string
}

/** The sentence for an answer that is not a success: the service's own error code first, else a
 * guess from the status, always with the key masked in what is quoted. */
export function describeFailure(
  ctx: FailureContext,
  req: FailedCall,
  answer: Answer,
  idempotencyKey: string | null,
): Err<ApiError> {
  const { scope, summary } = operations[req.operation]
  const masked = maskSecret(ctx.key.secret)
  const sent = answer.text.split(ctx.key.secret).join(masked)
  const excerpt = quote(sent.length > 600 ? `${sent.slice(0, 600)}…` : sent)
  const head = `${req.method} ${req.path} (${summary}) answered ${answer.status}${answer.statusText ? ` ${quote(answer.statusText)}` : ''}${excerpt ? `: ${excerpt}` : ' with an empty body'}.`
  const detail = {
    status: answer.status,
    body: parseJson(sent),
    key: masked,
    keyName: ctx.key.name,
    scope,
    idempotencyKey,
  }
  return (
    explainServiceCode(ctx, req, answer.status, parseJson(sent), head, detail) ??
    explainStatus(ctx, req, answer.status, head, detail, idempotencyKey)
  )
}

/** A service's text as a sentence may quote it: one line (a pretty-printed body's line breaks
 * and indents read as one space) with every control character written out (`inert`), so an
 * error text cannot end the sentence's line and forge one of its own on the operator's terminal,
 * in a log line or in a message; the parsed body stays as it came in the detail. */
function quote(text: string): string {
  return inert(text.replace(/[ \t]*\r?\n\s*/g, ' '))
}

/** The guess from the status alone, when the service named no error code watchdesk knows. */
function explainStatus(
  ctx: FailureContext,
  req: FailedCall,
  status: number,
  head: string,
  detail: Record<string, unknown>,
  idempotencyKey: string | null,
): Err<ApiError> {
  const { key, businessId, base, maxAttempts } = ctx
  const { scope, summary } = operations[req.operation]
  const masked = maskSecret(key.secret)
  switch (status) {
    case 401:
      return err(
        'unauthorized',
        `${head} The service did not accept the key "${key.name}" (${masked}): it may be revoked, mistyped, or a ${key.kind} key sent to the wrong base URL (${base}). Store a valid key with "watchdesk keys set" or in Settings.`,
        detail,
      )
    case 403:
      return err(
        'forbidden',
        `${head} The key "${key.name}" (${masked}) likely lacks the scope ${scope}, which ${summary} needs${businessId ? `, or has no access to business ${businessId}` : ''}. Use a key created with ${scope}.`,
        detail,
      )
    case 404:
    case 405:
      return pathNotServed(ctx, req, head, detail)
    case 429:
      return err(
        'rate_limited',
        `${head} The key "${key.name}" (${masked}) is being rate limited and watchdesk gave up after ${maxAttempts} attempts. Check the key's plan in Settings or wait a minute.`,
        detail,
      )
    default:
      if (status >= 500)
        return err(
          'upstream',
          `${head} The service failed; watchdesk retried ${maxAttempts} times${idempotencyKey ? ' with the same idempotency key' : ''}.`,
          detail,
        )
      if (status >= 300 && status < 400)
        return err('upstream', `${head} The service redirected; check apiBaseUrl (${base}).`, detail)
      return err('bad_request', `${head} The service rejected the request.`, detail)
  }
}

/** 404 or 405: the list and delete paths are guesses (the service publishes none), any other
 * path points at a wrong base URL. */
function pathNotServed(
  ctx: FailureContext,
  req: FailedCall,
  head: string,
  detail: Record<string, unknown>,
): Err<ApiError> {
  const guessed = req.operation === 'webhooks.list' || req.operation === 'webhooks.delete'
  if (!guessed)
    return err('upstream', `${head} Check apiBaseUrl (${ctx.base}); the path should be under /v1.`, detail)
  const deleting = req.operation === 'webhooks.delete'
  return err(
    'not_found',
    `${head} The path is the likely cause: the service publishes no ${deleting ? 'delete' : 'list'} path, so watchdesk used the common one, ${req.method} ${req.path}${deleting ? ' with the id as a query parameter' : ''}. Set the path${deleting ? ' and parameter name' : ''} under Settings → Webhook endpoints (config webhookEndpoints).`,
    detail,
  )
}

/** What the service said decides the sentence (its error code first), before any guess from
 * the status about paths or scopes. Null when the body names nothing watchdesk can explain. */
function explainServiceCode(
  ctx: FailureContext,
  req: FailedCall,
  status: number,
  body: unknown,
  head: string,
  detail: Record<string, unknown>,
): Err<ApiError> | null {
  const raw = serviceErrorOf(body)
  if (!raw) return null
  const said = {
    code: raw.code === null ? null : quote(raw.code),
    message: raw.message === null ? null : quote(raw.message),
    scopes: raw.scopes.map(quote),
    param: raw.param === null ? null : quote(raw.param),
  }
  const { key, businessId, base } = ctx
  const { scope, summary } = operations[req.operation]
  const masked = maskSecret(key.secret)
  const quoted = `${said.code ?? `${status}`}${said.message ? `: ${said.message}` : ''}`
  const withCode = { ...detail, serviceCode: raw.code, missingScopes: raw.scopes }
  switch (kindOfCode(raw.code, raw.scopes)) {
    case 'business':
      return err(
        'forbidden',
        `${head} The service refused the business${businessId ? ` ${businessId}` : ''} for the key "${key.name}" (${quoted}). Select a business this key can reach under Settings → Businesses, or use a key of that business.`,
        withCode,
      )
    case 'scope': {
      const missing = said.scopes.length > 0 ? said.scopes.join(', ') : scope
      return err(
        'forbidden',
        `${head} The key "${key.name}" (${masked}) lacks the scope ${missing}, which ${summary} needs (the service said ${quoted}). Create a key with ${missing} and store it.`,
        withCode,
      )
    }
    case 'key':
      return err(
        'unauthorized',
        `${head} The service did not accept the key "${key.name}" (${masked}): ${quoted}. Store a valid ${key.kind} key in Settings or with "watchdesk keys set".`,
        withCode,
      )
    case 'not_found':
      if (req.operation === 'webhooks.delete')
        return err(
          'not_found',
          `${head} The service says the endpoint is not there (${quoted}): it may have been deleted already. Refresh the list.`,
          withCode,
        )
      return err(
        'not_found',
        `${head} The service has nothing at ${req.method} ${req.path} (${quoted}). ${req.operation === 'webhooks.list' ? 'Set the list path under Settings → Webhook endpoints.' : `Check that apiBaseUrl (${base}) is the payments API's address.`}`,
        withCode,
      )
    case 'invalid':
      return err(
        'bad_request',
        `${head} The service rejected the request (${quoted}${said.param ? `; field ${said.param}` : ''}). Correct ${said.param ?? 'the request'} and try again.`,
        withCode,
      )
    default:
      return null
  }
}

/** A body as JSON when it parses, else its text (null when empty). */
export function parseJson(text: string): unknown {
  if (text === '') return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
