/** The only form of a secret that may leave the main process: known prefix, an ellipsis, last four. */
const knownPrefixes = ['sk_sandbox_', 'sk_live_', 'whsec_']

export function maskSecret(secret: string): string {
  const prefix = knownPrefixes.find((p) => secret.startsWith(p)) ?? ''
  const rest = secret.slice(prefix.length)
  if (rest.length <= 4) return `${prefix}…`
  return `${prefix}…${rest.slice(-4)}`
}
