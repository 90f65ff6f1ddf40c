import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { exportEvents } from '../../../src/main/api/events'
import { openDatabase } from '../../../src/main/db'
import { createEventStore, signBody } from '../../../src/main/webhooks'
import { unwrap } from '../../../src/shared/result'
import { runCli } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'
import { useListenProcess } from '../forward/processes'
import { envelope, post, secretA } from './helpers'

const env = (): NodeJS.ProcessEnv => ({ ...process.env, WATCHDESK_WEBHOOK_SECRETS: secretA })
const signed = (body: string) => ({ 'x-service-signature': signBody(secretA, body) })

describe('a conflicting redelivery, wherever the event goes', () => {
  const tempDir = useTempDir('watchdesk-conflict-cli-')
  const startListen = useListenProcess()

  it('events --json (the built CLI), the JSON-lines and the CSV export carry the conflict', async () => {
    const dataDir = tempDir()
    const listen = await startListen(['--data-dir', dataDir], env())
    const first = envelope('evt_cf_1')
    const other = envelope('evt_cf_1', 'funding.completed', { id: 'fund_evt_cf_1', amount: 7 })
    expect((await post(listen.webhookUrl, first, signed(first))).status).toBe(200)
    expect((await post(listen.webhookUrl, other, signed(other))).status).toBe(200)
    const plain = envelope('evt_cf_2')
    expect((await post(listen.webhookUrl, plain, signed(plain))).status).toBe(200)
    listen.process.kill('SIGINT')
    expect(await listen.exited).toBe(0)

    const listed = await runCli(['events', '--json', '--data-dir', dataDir], env())
    expect(listed.code).toBe(0)
    const byId = new Map(
      listed.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .map((e) => [e.id, e]),
    )
    expect(byId.get('evt_cf_1')).toMatchObject({ deliveries: 2, conflicts: 1, conflict_body: other })
    expect(byId.get('evt_cf_2')).toMatchObject({ deliveries: 1, conflicts: 0, conflict_body: null })

    const db = unwrap(openDatabase(join(dataDir, 'watchdesk.db'), { readonly: true }))
    try {
      const store = createEventStore(db)
      const jsonl = exportEvents(store, { search: 'evt_cf_1' }, 'jsonl').text.trim()
      expect(JSON.parse(jsonl)).toMatchObject({ conflicts: 1, conflict_body: other })
      const [header, row] = exportEvents(store, { search: 'evt_cf_1' }, 'csv').text.trim().split('\n')
      const columns = header!.split(',')
      expect(columns).toContain('conflicts')
      expect(columns).toContain('conflict_body')
      // The body is quoted (it holds commas and quotes), its quotes doubled.
      expect(row).toContain(`,1,"${other.replace(/"/g, '""')}",`)
    } finally {
      db.close()
    }
  })
})
