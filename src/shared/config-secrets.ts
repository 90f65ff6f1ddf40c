import { isCredentialParameter, maskUrl } from './mask.ts'

/** The one rule for credentials in the configuration (docs/configuration.md, "Secrets in
 * config.json"). Wherever it sits in config.json, a value is a secret when it is
 * - the value of a header (any key under a `headers` object: forward targets, chain references),
 * - the userinfo of a URL (`https://user:password@host`, or a token as the user name),
 * - the value of a query parameter with a credential-like name (`isCredentialParameter`: `key`,
 *   `apikey`, `token`, `password`, `secret`, `signature`, `sig`, `auth`, …) in any URL.
 * A secret is shown masked (`maskConfigSecrets`: Settings, the Events view, `config get`, MCP,
 * logs), written only when a new value is typed (`keepMaskedSecrets`), and left out of backups
 * (`stripConfigSecrets`, reported back by `absentSecrets`). */

export type SecretPart = { kind: 'header' } | { kind: 'userinfo' } | { kind: 'query'; name: string }

export interface ConfigSecret {
  /** Where the value holding it sits: `forward.targets.hook.headers.Authorization`,
   * `chains.1.references.0.url` (array items by index). */
  path: string[]
  part: SecretPart
  /** The secret as written in the file (a query value as written, percent-encoding included). */
  value: string
}

const urlLike = /^[a-z][a-z0-9+.-]*:\/\//i
/** Scheme, then the authority's userinfo: everything up to the authority's last `@`. */
const userinfoPattern = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i

/** Every secret the object holds (a config, the saved file, or any part of one). */
export function configSecrets(node: unknown, path: string[] = []): ConfigSecret[] {
  if (typeof node === 'string') return valueSecrets(node, path)
  if (Array.isArray(node)) return node.flatMap((item, i) => configSecrets(item, [...path, String(i)]))
  if (typeof node === 'object' && node !== null)
    return Object.entries(node).flatMap(([key, value]) => configSecrets(value, [...path, key]))
  return []
}

function valueSecrets(value: string, path: string[]): ConfigSecret[] {
  if (path.at(-2) === 'headers') return value === '' ? [] : [{ path, part: { kind: 'header' }, value }]
  if (!urlLike.test(value)) return []
  return urlSecrets(value).map((s) => ({ path, ...s }))
}

/** The secret parts of one URL, as written. */
export function urlSecrets(url: string): { part: SecretPart; value: string }[] {
  const out: { part: SecretPart; value: string }[] = []
  const userinfo = userinfoPattern.exec(url)?.[2]
  if (userinfo) out.push({ part: { kind: 'userinfo' }, value: userinfo })
  for (const { name, value } of queryParameters(url))
    if (value !== '' && isCredentialParameter(safeDecode(name)))
      out.push({ part: { kind: 'query', name }, value })
  return out
}

function queryParameters(url: string): { name: string; value: string }[] {
  const query = /\?([^#]*)/.exec(url)?.[1]
  if (!query) return []
  return query
    .split('&')
    .filter((pair) => pair.includes('='))
    .map((pair) => {
      const at = pair.indexOf('=')
      return { name: pair.slice(0, at), value: pair.slice(at + 1) }
    })
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text
  }
}

/** The one form a config secret takes when shown: an ellipsis, and the last four characters only
 * when the value is long enough (20+) that four of them give nothing away. */
export const maskMark = '…'
export function maskConfigSecret(value: string, part?: SecretPart): string {
  const plain = safeDecode(value)
  // Not a secret: the place a restored backup left for one, shown as it is.
  if (value === absentSecretMark) return value
  // A user name and password together: the tail would be the password's.
  if (part?.kind === 'userinfo') return maskMark
  return plain.length >= 20 ? `${maskMark}${plain.slice(-4)}` : maskMark
}

/** Whether a value is a masked secret sent back (starts with the ellipsis), not a typed one. */
export const isMaskedSecret = (value: string): boolean => safeDecode(value).startsWith(maskMark)

/** What a backup writes instead of each secret (URL-safe and header-safe), so the restored file
 * says where a value must be set again. */
export const absentSecretMark = 'WATCHDESK-SECRET-NOT-IN-BACKUP'

/** `url` with one secret part replaced by `replacement` (as written; nothing else changes). */
export function replaceUrlPart(url: string, part: SecretPart, replacement: string): string {
  if (part.kind === 'userinfo')
    return url.replace(userinfoPattern, (_m, scheme: string) => `${scheme}${replacement}@`)
  if (part.kind !== 'query') return url
  const [head, fragment] = splitOnce(url, '#')
  const [base, query] = splitOnce(head, '?')
  if (query === null) return url
  const pairs = query.split('&').map((pair) => {
    const at = pair.indexOf('=')
    return at >= 0 && pair.slice(0, at) === part.name ? `${part.name}=${replacement}` : pair
  })
  return `${base}?${pairs.join('&')}${fragment === null ? '' : `#${fragment}`}`
}

function splitOnce(text: string, separator: string): [string, string | null] {
  const at = text.indexOf(separator)
  return at < 0 ? [text, null] : [text.slice(0, at), text.slice(at + 1)]
}

/** `value` (a header value or a URL) with every secret of `secrets` replaced by `replace(secret)`. */
function replaceSecrets(
  value: string,
  secrets: ConfigSecret[],
  replace: (s: ConfigSecret) => string,
): string {
  let out = value
  for (const s of secrets)
    out = s.part.kind === 'header' ? replace(s) : replaceUrlPart(out, s.part, replace(s))
  return out
}

/** A deep copy of `config` with every secret replaced by `replace(secret)`. */
export function mapConfigSecrets<T>(config: T, replace: (s: ConfigSecret) => string): T {
  const secrets = configSecrets(config)
  if (secrets.length === 0) return config
  const copy = structuredClone(config) as unknown
  const byValue = new Map<string, ConfigSecret[]>()
  for (const s of secrets) {
    const key = JSON.stringify(s.path)
    byValue.set(key, [...(byValue.get(key) ?? []), s])
  }
  for (const group of byValue.values()) {
    const path = group[0]!.path
    const parent = path
      .slice(0, -1)
      .reduce<Record<string, unknown>>(
        (at, key) => at[key] as Record<string, unknown>,
        copy as Record<string, unknown>,
      )
    const key = path.at(-1)!
    parent[key] = replaceSecrets(parent[key] as string, group, replace)
  }
  return copy as T
}

/** The config as it may be shown anywhere outside the back end. */
export const maskConfigSecrets = <T>(config: T): T =>
  mapConfigSecrets(config, (s) => maskConfigSecret(s.value, s.part))

/** A URL as it may be shown (a forward target's, a reference's). */
export const maskConfigUrl = (url: string): string =>
  urlLike.test(url)
    ? replaceSecrets(
        url,
        urlSecrets(url).map((s) => ({ path: [], ...s })),
        (s) => maskConfigSecret(s.value, s.part),
      )
    : url

/** A URL without its userinfo, query and fragment: what names an ad-hoc forward target. */
export function urlWithoutCredentials(url: string): string {
  return url.replace(userinfoPattern, (_m, scheme: string) => scheme).replace(/[?#].*$/s, '')
}

/** The secrets' values, decoded too, for the logger's last-guard redaction. A header written as
 * `Bearer TOKEN` gives the token alone as well, and a userinfo its password; values shorter than
 * eight characters are left to masking (redacting them would garble ordinary words). */
export function configSecretValues(config: unknown): string[] {
  const values = configSecrets(config).flatMap((s) => {
    const decoded = safeDecode(s.value)
    const words = s.part.kind === 'header' ? s.value.trim().split(/\s+/).slice(1) : []
    const password = s.part.kind === 'userinfo' ? decoded.split(':').slice(1).join(':') : ''
    return [s.value, decoded, ...words, password]
  })
  return [...new Set(values)].filter(
    (v) => v.length >= 8 && !v.startsWith(maskMark) && v !== absentSecretMark,
  )
}

/** One secret a backup left out, as `restore` reports it. */
export interface AbsentSecret {
  /** The dotted key of the value holding it (`forward.targets.hook.headers.Authorization`). */
  key: string
  /** What is missing there: "the header value", "the userinfo", "the apikey parameter". */
  what: string
}

export const dottedKey = (path: string[]): string => path.join('.')

export function describePart(part: SecretPart): string {
  if (part.kind === 'header') return 'the header value'
  if (part.kind === 'userinfo') return 'the user and password in the URL'
  return `the ${safeDecode(part.name)} parameter of the URL`
}

/** The config with every secret replaced by `absentSecretMark`, and the list of what was left out. */
export function stripConfigSecrets<T>(config: T): { config: T; absent: AbsentSecret[] } {
  const secrets = configSecrets(config).filter((s) => s.value !== absentSecretMark)
  return {
    config: mapConfigSecrets(config, () => absentSecretMark),
    absent: secrets.map((s) => ({ key: dottedKey(s.path), what: describePart(s.part) })),
  }
}

/** The secrets a restored config lacks (each place the backup wrote `absentSecretMark`). */
export function absentSecrets(config: unknown): AbsentSecret[] {
  return configSecrets(config)
    .filter((s) => s.value === absentSecretMark)
    .map((s) => ({ key: dottedKey(s.path), what: describePart(s.part) }))
}

/** A secret sent back masked that cannot be kept (nothing to keep, or another address). */
export interface MaskedSecretProblem {
  key: string
  message: string
}

/** Settings are write-only for secrets: in `draft` (the saved config with an edit applied), every
 * secret still in its masked form (as `settings.get` showed it) takes back the value it stands for
 * from `previous` (the saved file, then the effective config), as long as the value it belongs to
 * still points at the same origin (a key is never sent to an address it was not typed for). Only a
 * newly typed value replaces a secret. Changes `draft`; returns what could not be kept. */
export function keepMaskedSecrets(
  draft: Record<string, unknown>,
  previous: readonly unknown[],
): MaskedSecretProblem[] {
  keepWholeMaskedUrls(draft, previous)
  const problems: MaskedSecretProblem[] = []
  for (const sent of configSecrets(draft).filter((s) => isMaskedSecret(s.value))) {
    const key = dottedKey(sent.path)
    const kept = previous.map((p) => keptValue(p, draft, sent)).find((v) => v !== null)
    if (kept === undefined) {
      problems.push({
        key,
        message: `${describePart(sent.part)} is the masked form of a secret that is not stored here (or belongs to another address); type the value itself.`,
      })
      continue
    }
    const parent = sent.path
      .slice(0, -1)
      .reduce<Record<string, unknown>>((at, k) => at[k] as Record<string, unknown>, draft)
    const current = parent[sent.path.at(-1)!] as string
    parent[sent.path.at(-1)!] = sent.part.kind === 'header' ? kept : replaceUrlPart(current, sent.part, kept)
  }
  return problems
}

/** The old value `sent` (masked) stands for in `previous`, or null. */
function keptValue(previous: unknown, draft: unknown, sent: ConfigSecret): string | null {
  const old = valueAt(previous, sent.path)
  if (typeof old !== 'string') return null
  const match = configSecrets(old, sent.path).find((s) => samePart(s.part, sent.part))
  if (!match || maskConfigSecret(match.value, match.part) !== safeDecode(sent.value)) return null
  const urlPath = sent.part.kind === 'header' ? [...sent.path.slice(0, -2), 'url'] : sent.path
  const [before, after] = [valueAt(previous, urlPath), valueAt(draft, urlPath)]
  if (before === undefined && after === undefined) return match.value
  return originOf(before) !== null && originOf(before) === originOf(after) ? match.value : null
}

const samePart = (a: SecretPart, b: SecretPart): boolean =>
  a.kind === b.kind && (a.kind !== 'query' || (b.kind === 'query' && a.name === b.name))

function valueAt(node: unknown, path: string[]): unknown {
  let at = node
  for (const key of path) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, key)) return undefined
    at = (at as Record<string, unknown>)[key]
  }
  return at
}

function originOf(url: unknown): string | null {
  if (typeof url !== 'string') return null
  try {
    return new URL(url).origin
  } catch {
    return null
  }
}

/** The value at `path` of a config (a whole section, or one leaf), masked as the whole config
 * would be: what `config get KEY` prints. */
export function maskConfigValue(value: unknown, path: readonly string[]): unknown {
  const wrapped = path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value)
  return valueAt(maskConfigSecrets(wrapped), [...path])
}

/** Node URLs are shown with their whole path and query masked (`maskNodeUrls`: a project uid may
 * sit in the path): such a value sent back unchanged takes back the URL it stands for. */
function keepWholeMaskedUrls(node: unknown, previous: readonly unknown[], path: string[] = []): void {
  if (typeof node !== 'object' || node === null) return
  for (const [key, value] of Object.entries(node)) {
    const at = [...path, key]
    if (typeof value !== 'string') {
      keepWholeMaskedUrls(value, previous, at)
      continue
    }
    if (!value.includes(maskMark)) continue
    const old = previous.map((p) => valueAt(p, at)).find((v) => typeof v === 'string' && v !== value)
    if (typeof old === 'string' && urlLike.test(old) && maskUrl(maskConfigUrl(old)) === value)
      (node as Record<string, unknown>)[key] = old
  }
}

const urlInText = /[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi

/** Every string in `value` (a report, an answer) with each URL in it shown by `maskConfigUrl`:
 * for texts that may quote a configured URL (the doctor's checks, an error message). */
export function maskUrlsIn<T>(value: T): T {
  if (typeof value === 'string') return value.replace(urlInText, (url) => maskConfigUrl(url)) as T
  if (Array.isArray(value)) return value.map((v: unknown) => maskUrlsIn(v)) as T
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskUrlsIn(v)])) as T
  return value
}
