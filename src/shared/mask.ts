/** The only form of a secret that may leave the main process: known prefix, an ellipsis, last four. */
const knownPrefixes = ['sk_sandbox_', 'sk_live_', 'whsec_']

export function maskSecret(secret: string): string {
  const prefix = knownPrefixes.find((p) => secret.startsWith(p)) ?? ''
  const rest = secret.slice(prefix.length)
  if (rest.length <= 4) return `${prefix}…`
  return `${prefix}…${rest.slice(-4)}`
}

/** A node URL as the console shows it: the origin, and the rest (which may carry the project uid
 * or another key in its path or query) masked. */
export function maskUrl(raw: string): string {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    return maskSecret(raw)
  }
  const rest = `${u.pathname}${u.search}`
  if (rest === '/' || rest === '') return u.origin
  return `${u.origin}/${maskSecret(rest.replace(/^\//, ''))}`
}

interface WithChainUrls {
  chains: Record<
    string,
    {
      url?: string
      referenceUrl?: string
      references?: { name: string; url: string; headers?: Record<string, string> }[]
    }
  >
}

/** The config as the API returns it: every node URL (`chains.<id>.url`, `.referenceUrl`, each
 * reference's url) masked as the Chains view masks it, and reference header values masked (they
 * are often API keys). */
export function maskNodeUrls<C extends WithChainUrls>(config: C): C {
  const chains = Object.fromEntries(
    Object.entries(config.chains).map(([id, chain]) => [
      id,
      {
        ...chain,
        ...(chain.url ? { url: maskUrl(chain.url) } : {}),
        ...(chain.referenceUrl ? { referenceUrl: maskUrl(chain.referenceUrl) } : {}),
        ...(chain.references
          ? {
              references: chain.references.map((r) => ({
                ...r,
                url: maskUrl(r.url),
                ...(r.headers
                  ? {
                      headers: Object.fromEntries(
                        Object.entries(r.headers).map(([k, v]) => [k, maskSecret(v)]),
                      ),
                    }
                  : {}),
              })),
            }
          : {}),
      },
    ]),
  )
  return { ...config, chains }
}

/** The one list of parameter names whose value is a credential, in a URL's query (`?apikey=`,
 * `&token=`) or a libpq `key=value` string: every place that masks, strips or redacts a URL's
 * secrets asks `isCredentialParameter`. Besides these names, any name containing key, token,
 * secret, passw, signature or credential counts (`x-api-key`, `auth_token`, `client_secret`):
 * masking a harmless value costs nothing, showing a credential costs the credential. */
export const credentialParameterNames: readonly string[] = [
  'key',
  'apikey',
  'api_key',
  'api-key',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'auth',
  'authorization',
  'password',
  'passwd',
  'pwd',
  'pass',
  'passfile',
  'secret',
  'client_secret',
  'signature',
  'sig',
  'jwt',
  'session',
  'sessionid',
  'credential',
  'credentials',
]
const credentialNamePart = /key|token|secret|passw|signature|credential/i

export function isCredentialParameter(name: string): boolean {
  return credentialParameterNames.includes(name.toLowerCase()) || credentialNamePart.test(name)
}

/** `name=value` in a query string or a libpq string (value possibly 'quoted'). */
const parameter = /(^|[?&;\s])([A-Za-z0-9_.-]+)=('(?:[^'\\]|\\.)*'|[^&\s'"#]*)/gi

/** Every secret a URL can carry, masked wherever it sits in `text` (a URL alone, an error message
 * or a log line quoting one): the password of the userinfo (`postgres://u:***@h/db`) and the value
 * of every secret parameter (`?password=***`, `sslpassword=***`, libpq's `password='…'`). The one
 * function every place that shows a store or source URL goes through. */
export function maskUrlSecrets(text: string): string {
  return text
    .replace(/([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*):([^\s/?#@]*)@/gi, (_m, head: string) => `${head}:***@`)
    .replace(parameter, (m, lead: string, name: string) =>
      isCredentialParameter(name) ? `${lead}${name}=***` : m,
    )
}

/** The secret values a URL carries (decoded), so a logger can redact them even where a library
 * quotes them in a form `maskUrlSecrets` does not recognise. */
export function urlSecretValues(text: string): string[] {
  const values: string[] = []
  const userinfo = /[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:([^\s/?#@]*)@/gi.exec(text)
  if (userinfo?.[1]) values.push(userinfo[1])
  for (const m of text.matchAll(parameter))
    if (m[3] && isCredentialParameter(m[2]!)) values.push(m[3].replace(/^'|'$/g, ''))
  const decoded = values.flatMap((v) => {
    try {
      const d = decodeURIComponent(v)
      return d === v ? [v] : [v, d]
    } catch {
      return [v]
    }
  })
  return [...new Set(decoded)].filter((v) => v.length > 0)
}
