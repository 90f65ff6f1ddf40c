import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { commitHookParams, openDatabase, prepareCommitHook } from '../../src/main/db'
import type { CommitHook } from '../../src/main/db'
import { syncedEventHooks } from '../../src/main/sources'
import { commitHooks } from '../../src/main/contributions'
import { hookParamsOf } from '../../src/main/webhooks/commit-transaction'
import { workerCommitter } from '../../src/main/webhooks/committer'
import { upsertEventSql } from '../../src/main/webhooks/sql'
import type { CommittedRow, EventParams } from '../../src/main/webhooks/sql'
import { eventParams } from '../../src/main/webhooks/store'
import { unwrap } from '../../src/shared/result'
import { useTempDir } from '../support/temp'

const tempDir = useTempDir()
/** A database with every migration applied (openDatabase migrates to the latest schema). */
const latestSchema = () => unwrap(openDatabase(join(tempDir(), 'watchdesk.db')))

const synced = (id: string): EventParams => ({
  ...eventParams({
    envelope: { id, type: 'payout.completed', created_at: '2026-11-25T10:00:00Z', data: { id: 'po_1' } },
    body: Buffer.from(id),
    endpoint: 'wh_a',
    at: 1_000,
  }),
  source: 'eu',
  cursor: '42',
  last: 1,
})

/** The same event as the listener delivers it: no source, cursor or page end. */
const listenerDelivery = (id: string): EventParams => {
  const { source: _s, cursor: _c, last: _l, ...delivery } = synced(id)
  return delivery
}

const allHooks = Object.entries(commitHooks).flatMap(([commit, hooks]) =>
  hooks.map((hook: CommitHook) => ({ commit, hook })),
)

describe('commit hooks', () => {
  it('the commit binds exactly the parameters CommitHookParams declares', () => {
    const db = latestSchema()
    const e = synced('evt_params')
    const row = db.prepare(upsertEventSql).get({ conflicts: 0, conflict_body: null, ...e }) as CommittedRow
    const params = hookParamsOf(e, row)
    expect(Object.keys(params).sort()).toEqual([...commitHookParams].sort())
    expect(params).toMatchObject({ seq: row.seq, inserted: 1, conflicted: 0, source: 'eu', last: 1 })
    db.close()
  })

  it("a synced event's commit keeps the source's own hook (its cursor) first", () => {
    expect(commitHooks.sources.slice(0, syncedEventHooks.length)).toEqual(syncedEventHooks)
  })

  it.each(allHooks.map(({ commit, hook }) => [`${commit}: ${hook.name}`, hook] as const))(
    '%s prepares against the latest schema and runs with exactly its declared parameters',
    (_, hook) => {
      const db = latestSchema()
      const e = synced('evt_hook')
      const row = db.prepare(upsertEventSql).get({ conflicts: 0, conflict_body: null, ...e }) as CommittedRow
      const all = hookParamsOf(e, row)
      // Only the declared ones: a parameter the SQL reads but the hook does not declare fails here.
      const declared = Object.fromEntries(hook.params.map((p) => [p, all[p]]))
      expect(() => prepareCommitHook(db, hook).run(declared)).not.toThrow()
      db.close()
    },
  )
})

describe('a hook that runs only when a flag is 1', () => {
  it.each(
    allHooks
      .filter(({ hook }) => hook.onlyWhen)
      .map(({ commit, hook }) => [`${commit}: ${hook.name}`, hook] as const),
  )('%s also tests its flag in its own SQL (skipping it changes nothing)', (_, hook) => {
    expect(hook.sql).toContain(`@${hook.onlyWhen} = 1`)
  })

  it('is not run for an event where its flag is 0: a redelivery does not run an `inserted` hook', async () => {
    const db = latestSchema()
    db.exec('CREATE TABLE first_seen (id TEXT NOT NULL)')
    // Its SQL runs on every call (@inserted is read, never 0-tested): only the commit's skipping
    // keeps a redelivery out of the table.
    const guarded = workerCommitter(db.name, {
      hooks: [
        {
          name: 'test.first-seen',
          sql: 'INSERT INTO first_seen (id) SELECT @id WHERE @inserted IS NOT NULL',
          params: ['id', 'inserted'],
          onlyWhen: 'inserted',
        },
      ],
    })
    const delivery = listenerDelivery('evt_twice')
    expect((await guarded.commit([delivery], [])).ok).toBe(true)
    expect((await guarded.commit([delivery], [])).ok).toBe(true)
    await guarded.close()
    expect(db.prepare('SELECT id FROM first_seen').all()).toEqual([{ id: 'evt_twice' }])
    db.close()
  })

  it('is not run in a transaction where its whileAny query finds nothing, and is once it does', async () => {
    const db = latestSchema()
    db.exec('CREATE TABLE first_seen (id TEXT NOT NULL); CREATE TABLE watching (on_ INTEGER)')
    const committer = workerCommitter(db.name, {
      hooks: [
        {
          name: 'test.first-seen',
          sql: 'INSERT INTO first_seen (id) VALUES (@id)',
          params: ['id'],
          whileAny: 'SELECT 1 FROM watching LIMIT 1',
        },
      ],
    })
    expect((await committer.commit([listenerDelivery('evt_unwatched')], [])).ok).toBe(true)
    db.exec('INSERT INTO watching VALUES (1)')
    expect((await committer.commit([listenerDelivery('evt_watched')], [])).ok).toBe(true)
    await committer.close()
    expect(db.prepare('SELECT id FROM first_seen').all()).toEqual([{ id: 'evt_watched' }])
    db.close()
  })

  it('every hook whose whileAny is set reads in that query the table its own SQL selects from', () => {
    for (const { hook } of allHooks.filter(({ hook }) => hook.whileAny)) {
      const table = /FROM (\w+)/.exec(hook.whileAny!)![1]!
      expect(hook.sql).toContain(`FROM ${table}`)
    }
  })
})

describe('a commit hook is refused, with its name and the cause, when', () => {
  const hook = (sql: string, params: readonly string[]): CommitHook => ({
    name: 'test.hook',
    sql,
    params: params as CommitHook['params'],
  })
  const refusal = (h: CommitHook) => {
    const db = latestSchema()
    try {
      prepareCommitHook(db, h)
      return null
    } catch (error) {
      return (error as Error).message
    } finally {
      db.close()
    }
  }

  it('its SQL reads a parameter it does not declare', () => {
    expect(refusal(hook('UPDATE events SET source = @source WHERE seq = @seq', ['source']))).toBe(
      'commit hook test.hook: reads @seq but does not declare it',
    )
  })

  it('it declares a parameter its SQL does not read', () => {
    expect(
      refusal(hook('UPDATE events SET source = @source WHERE seq = @seq', ['source', 'seq', 'last'])),
    ).toBe('commit hook test.hook: declares @last but its SQL does not read it')
  })

  it('it declares a parameter the commit does not provide', () => {
    expect(refusal(hook('UPDATE events SET source = @name WHERE seq = @seq', ['name', 'seq']))).toBe(
      'commit hook test.hook: declares @name, which the commit does not provide',
    )
  })

  it('its whileAny is not a query without parameters', () => {
    const base = hook('UPDATE events SET source = @source WHERE seq = @seq', ['source', 'seq'])
    expect(refusal({ ...base, whileAny: 'DELETE FROM forward_routes' })).toBe(
      'commit hook test.hook: its whileAny is not a query without parameters (it changes data)',
    )
    expect(refusal({ ...base, whileAny: 'SELECT 1 FROM forward_routes WHERE target = @t' })).toMatch(
      /^commit hook test\.hook: its whileAny is not a query without parameters \(/,
    )
  })

  it('it runs only when a flag is 1 that it does not declare', () => {
    expect(
      refusal({
        ...hook('UPDATE events SET source = @source WHERE seq = @seq', ['source', 'seq']),
        onlyWhen: 'last',
      }),
    ).toBe('commit hook test.hook: runs only when @last is 1, which it does not declare')
  })

  it('its parameters are positional', () => {
    expect(refusal(hook('UPDATE events SET source = ? WHERE seq = @seq', ['seq']))).toMatch(
      /^commit hook test\.hook: its parameters must all be named/,
    )
  })

  it('its SQL does not prepare against the latest schema', () => {
    expect(refusal(hook('INSERT INTO no_such_table (seq) VALUES (@seq)', ['seq']))).toMatch(
      /^commit hook test\.hook: its SQL does not prepare \(no such table: no_such_table\)/,
    )
  })

  it('the commit worker is given it: every commit fails with the hook named, nothing is stored', async () => {
    const db = latestSchema()
    const committer = workerCommitter(db.name, {
      hooks: [hook('UPDATE events SET source = @source WHERE seq = @seq', ['source'])],
    })
    const result = await committer.commit([synced('evt_refused')], [])
    await committer.close()
    expect(result).toMatchObject({
      ok: false,
      failure: {
        message: expect.stringContaining('commit hook test.hook: reads @seq but does not declare it'),
      },
    })
    expect(db.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 0 })
    db.close()
  })
})
