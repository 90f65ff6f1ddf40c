import { api } from './client'
import type { Client } from './client'

/** The back end client. The App renders only when a transport exists, so a null here is a bug. */
export function backend(): Client {
  if (!api) throw new Error('watchdesk: no transport to the back end')
  return api
}
