import type { Client } from './client'

let current: Client | null = null

/** Set once at start (main.tsx), or by a test with a client over a stand-in transport. */
export function provideBackend(client: Client | null): void {
  current = client
}

/** The back end client. The App renders only when a transport exists, so a null here is a bug. */
export function backend(): Client {
  if (!current) throw new Error('watchdesk: no transport to the back end')
  return current
}
