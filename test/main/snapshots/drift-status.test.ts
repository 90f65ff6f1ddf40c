import { describe, expect, it } from 'vitest'
import { readDriftStatus } from '../../../src/main/drift'
import { createDriftStore } from '../../../src/main/drift/store'
import { emptyShape, fieldsOf, learn } from '../../../src/main/drift/shape'
import { DriftConfig } from '../../../src/shared/drift'
import { commitBetweenReads } from '../../support/between-reads'
import { useTempDir } from '../../support/temp'
import { listenerDatabase, t0 } from './support'

describe('the drift status a second process reads (CLI, MCP)', () => {
  const dir = useTempDir()

  it('lists no shape change of a type its shapes do not list when the watch saves between the reads', () => {
    const console = listenerDatabase(dir())
    const shape = emptyShape('card.authorization.request')
    learn(shape, fieldsOf({ id: 'auth_1', amount: 5 }))
    // The console's watch saves a new type's shape with a change it saw, in one transaction.
    const save = () =>
      createDriftStore(console.writer).save(
        [
          {
            type: shape.type,
            eventId: 'evt_auth',
            eventSeq: 1,
            at: t0,
            changes: [{ kind: 'added', path: 'amount', from: [], to: ['number'] }],
          },
        ],
        [shape],
        1,
        t0,
      )
    const db = commitBetweenReads(console.reader(), (sql) => sql.includes('FROM drift_changes'), save)

    const status = readDriftStatus(db, DriftConfig.parse({}))
    expect([status.types.map((t) => t.type), status.drifts.map((d) => d.type)]).toEqual([[], []])
    const after = readDriftStatus(db, DriftConfig.parse({}))
    expect([after.types.map((t) => t.type), after.drifts.map((d) => d.type), after.readThrough]).toEqual([
      [shape.type],
      [shape.type],
      1,
    ])
  })
})
