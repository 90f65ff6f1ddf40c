/** A host other than loopback without TLS: relay tokens and every event cross the network in
 * clear text. Said, not refused (a TLS proxy in front is a fine setup). */
export function exposureWarnings(host: string, tls: boolean): string[] {
  if (tls || isLoopback(host)) return []
  return [
    `The relay listens on ${host} without TLS: relay tokens and events cross the network unencrypted. Put a TLS proxy in front (deploy/), pass --tls-cert and --tls-key, or bind 127.0.0.1.`,
  ]
}

export const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || /^127\./.test(host) || host === '[::1]'
