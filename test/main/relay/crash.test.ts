import { spawnSync } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { usePostgres } from '../../support/postgres'
import { waitFor } from '../../support/wait'
import { spawnRelay } from '../../support/relay-process'
import { deliver, relaySecret } from './helpers'

const root = join(import.meta.dirname, '../../..')
const bin = join(root, 'bin/watchdesk')

describe('relays under kill -9', () => {
  const postgres = usePostgres()
  const children: ChildProcess[] = []
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  })

  it('keep every delivery that got 200 from either relay when one is killed mid-load', async () => {
    expect(existsSync(join(root, 'out/main/cli.js')), 'the built bundle (npm run build)').toBe(true)
    const url = postgres().createDatabase('crash')
    const env = { WATCHDESK_WEBHOOK_SECRETS: relaySecret }
    const [a, b] = [await spawnRelay(url, env).ready, await spawnRelay(url, env).ready]
    children.push(a.child, b.child)
    const ids = Array.from({ length: 3000 }, (_, i) => `evt_load_${String(i).padStart(5, '0')}`)
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
    expect(answeredBy.b).toBe(1500)

    const client = new pg.Client(url)
    await client.connect()
    const { rows } = await client.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1::text[])', [
      acknowledged,
    ])
    await client.end()
    expect(rows.length).toBe(acknowledged.length)

    // The same store read through the command line (events --store … --json).
    const listed = spawnSync(
      process.execPath,
      [bin, 'events', '--store', url, '--json', '--limit', '100000'],
      {
        encoding: 'utf8',
      },
    )
    expect(listed.status).toBe(0)
    const listedIds = new Set(
      listed.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id),
    )
    for (const id of acknowledged) expect(listedIds.has(id)).toBe(true)
  })
})
