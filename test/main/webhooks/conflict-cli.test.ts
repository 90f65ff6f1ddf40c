import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { exportEvents } from '../../../src/main/api/events'
import { openDatabase } from '../../../src/main/db'
import { createEventStore, signBody } from '../../../src/main/webhooks'
import { unwrap } from '../../../src/shared/result'
import { runMain } from '../../support/cli'
import { cliPath } from '../../support/serve-process'
import { waitFor } from '../../support/wait'
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

    const listed = await runMain(['events', '--json', '--data-dir', dataDir], env())
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

describe('events --follow and a conflict', () => {
  const tempDir = useTempDir('watchdesk-conflict-follow-')
  const startListen = useListenProcess()

  it('prints an event again when a redelivery with a different body arrives after it was printed', async () => {
    const dataDir = tempDir()
    const listen = await startListen(['--data-dir', dataDir], env())
    const follow = spawn(
      process.execPath,
      [cliPath, 'events', '--follow', '--json', '--interval', '50', '--data-dir', dataDir],
      { env: env(), stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let out = ''
    let err = ''
    follow.stdout.on('data', (c) => (out += c))
    follow.stderr.on('data', (c) => (err += c))
    const exited = new Promise((resolve) => follow.once('exit', resolve))
    try {
      await waitFor(() => err.includes('following new events') || undefined, 'the follow to start')
      const parsed = () =>
        out
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { id: string; conflicts: number; conflict_body: string | null })
      const first = envelope('evt_cf_follow')
      expect((await post(listen.webhookUrl, first, signed(first))).status).toBe(200)
      await waitFor(() => parsed().length === 1 || undefined, 'the event printed')
      const other = envelope('evt_cf_follow', 'funding.completed', { id: 'x', amount: 3 })
      expect((await post(listen.webhookUrl, other, signed(other))).status).toBe(200)
      const lines = await waitFor(() => (parsed().length === 2 ? parsed() : undefined), 'printed again')
      expect(lines.map((l) => [l.id, l.conflicts, l.conflict_body])).toEqual([
        ['evt_cf_follow', 0, null],
        ['evt_cf_follow', 1, other],
      ])
      // An identical redelivery is no conflict: nothing more is printed.
      expect((await post(listen.webhookUrl, first, signed(first))).status).toBe(200)
      const marker = envelope('evt_cf_marker')
      expect((await post(listen.webhookUrl, marker, signed(marker))).status).toBe(200)
      await waitFor(() => parsed().at(-1)?.id === 'evt_cf_marker' || undefined, 'the next event')
      expect(parsed()).toHaveLength(3)
    } finally {
      follow.kill('SIGINT')
      await exited
    }
  })
})
