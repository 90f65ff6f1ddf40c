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
  chains: Record<string, { url?: string; referenceUrl?: string }>
}

/** The config as the API returns it: every node URL (`chains.<id>.url`, `.referenceUrl`) masked
 * as the Chains view masks it. */
export function maskNodeUrls<C extends WithChainUrls>(config: C): C {
  const chains = Object.fromEntries(
    Object.entries(config.chains).map(([id, chain]) => [
      id,
      {
        ...chain,
        ...(chain.url ? { url: maskUrl(chain.url) } : {}),
        ...(chain.referenceUrl ? { referenceUrl: maskUrl(chain.referenceUrl) } : {}),
      },
    ]),
  )
  return { ...config, chains }
}
