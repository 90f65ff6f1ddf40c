import type { ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { runMain } from '../../support/cli'
import { usePostgres } from '../../support/postgres'
import { waitFor } from '../../support/wait'
import { spawnRelay } from '../../support/relay-process'
import { deliver, relaySecret } from './helpers'

const root = join(import.meta.dirname, '../../..')

describe('relays under kill -9', () => {
  const postgres = usePostgres()
  const children: ChildProcess[] = []
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  })

  it('keep every delivery that got 200 from either relay when one is killed mid-load', async () => {
    expect(existsSync(join(root, 'out/main/cli.js')), 'the built bundle (npm run build)').toBe(true)
    const url = await postgres().createDatabase('crash')
    const env = { WATCHDESK_WEBHOOK_SECRETS: relaySecret }
    const [a, b] = await Promise.all([spawnRelay(url, env).ready, spawnRelay(url, env).ready])
    children.push(a.child, b.child)
    // Relay a is killed once it answered 300 of its 600: the rest of its share meets a dead relay.
    const ids = Array.from({ length: 1200 }, (_, i) => `evt_load_${String(i).padStart(5, '0')}`)
    const acknowledged: string[] = []
    const answeredBy = { a: 0, b: 0, refused: 0 }
    let next = 0
    let killed = false
    const worker = async () => {
      while (next < ids.length) {
        const i = next++
        const id = ids[i]!
        const viaA = i % 2 === 0
        const status = await deliver(viaA ? a.webhooks : b.webhooks, id)
        if (status === 200) {
          acknowledged.push(id)
          answeredBy[viaA ? 'a' : 'b']++
        } else answeredBy.refused++
        if (!killed && answeredBy.a >= 300) {
          killed = true
          a.child.kill('SIGKILL')
        }
      }
    }
    await Promise.all(Array.from({ length: 32 }, worker))
    await waitFor(() => a.child.signalCode === 'SIGKILL' || undefined, 'relay a to be gone')
    expect(answeredBy.a).toBeGreaterThanOrEqual(300)
    expect(answeredBy.refused).toBeGreaterThan(0)
    expect(answeredBy.b).toBe(600)

    const client = new pg.Client(url)
    await client.connect()
    const { rows } = await client.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1::text[])', [
      acknowledged,
    ])
    await client.end()
    expect(rows.length).toBe(acknowledged.length)

    // The same store read through the command line (events --store … --json), its main() here.
    const listed = await runMain(['events', '--store', url, '--json', '--limit', '100000'])
    expect(listed.code).toBe(0)
    const listedIds = new Set(
      listed.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id),
    )
    for (const id of acknowledged) expect(listedIds.has(id)).toBe(true)
    // Two relay processes and 1,200 deliveries: at load average 20 more than the default 30 s.
  }, 90_000)
})
