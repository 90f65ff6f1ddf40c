import { err, ok } from '../result'
import type { Result } from '../result'

/** Spec 5.1: the kind of an API key is its prefix. */
export const keyKinds = [
  { prefix: 'sk_sandbox_', kind: 'sandbox', label: 'Sandbox' },
  { prefix: 'sk_live_', kind: 'live', label: 'Live' },
] as const
export type KeyKind = (typeof keyKinds)[number]['kind']

export const validPrefixesSentence =
  'An API key starts with sk_sandbox_ (sandbox, no real money moves) or sk_live_ (live, moves real funds).'

export function keyKindOf(key: string): Result<KeyKind> {
  const trimmed = key.trim()
  const match = keyKinds.find((k) => trimmed.startsWith(k.prefix))
  if (!match) return err('bad_request', `That is not an API key of this service. ${validPrefixesSentence}`)
  if (trimmed.length <= match.prefix.length + 4) {
    return err(
      'bad_request',
      `That key is too short to be real: only the prefix ${match.prefix} and a few characters. Paste the whole key.`,
    )
  }
  if (/\s/.test(trimmed))
    return err('bad_request', 'An API key has no spaces or line breaks inside it. Paste the key alone.')
  return ok(match.kind)
}

/** Names of stored keys: the account is `api-key:<name>`; `env` is reserved for WATCHDESK_API_KEY. */
export const keyNamePattern = /^[a-z0-9][a-z0-9_-]{0,39}$/
export const keyNameRule =
  'A key name is 1–40 lowercase letters, digits, "-" or "_" (for example "sandbox" or "main-live").'

export function checkKeyName(name: string): Result<string> {
  if (name === 'env')
    return err('bad_request', 'The name "env" is reserved for WATCHDESK_API_KEY. Choose another name.')
  if (!keyNamePattern.test(name)) return err('bad_request', keyNameRule)
  return ok(name)
}

/** The one rule for a business id (the X-Business-Id header), shared by the config, the contract
 * and the form that adds one. */
export const businessIdPattern = /^biz_[A-Za-z0-9_-]+$/
export const businessIdRule = 'a business id starts with biz_'
