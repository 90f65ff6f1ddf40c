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
