import { join } from 'node:path'
import { onTestFinished } from 'vitest'
import { commitHooks } from '../../../src/main/contributions'
import { openDatabase } from '../../../src/main/db'
import type { CommitHook, Database } from '../../../src/main/db'
import { parseEnvelope } from '../../../src/main/webhooks'
import { createCommitTransaction } from '../../../src/main/webhooks/commit-transaction'
import { eventParams } from '../../../src/main/webhooks/store'
import { unwrap } from '../../../src/shared/result'
import { envelope } from '../webhooks/helpers'

export const t0 = Date.parse('2026-11-20T10:15:01Z')

/** A console database on disk (or a relay's, with its hooks) and a second connection committing the listener's deliveries the
 * way the commit worker does (its transaction and hooks), synchronously, so a test can land one
 * between two reads of another connection. Its connections close when the test ends. */
export function listenerDatabase(
  dir: string,
  hooks: readonly CommitHook[] = commitHooks.listener,
): {
  file: string
  writer: Database
  deliver(id: string, at: number, data?: Record<string, unknown>): void
  reader(): Database
} {
  const file = join(dir, 'watchdesk.db')
  const writer = unwrap(openDatabase(file))
  const transaction = createCommitTransaction(writer, hooks)
  const opened: Database[] = [writer]
  onTestFinished(() => {
    for (const db of opened) db.close()
  })
  return {
    file,
    writer,
    deliver(id, at, data) {
      const body = Buffer.from(envelope(id, undefined, data))
      const [reply] = transaction.commit([
        {
          id: 0,
          events: [eventParams({ envelope: unwrap(parseEnvelope(body)), body, endpoint: 'wh_alpha', at })],
          rejections: [],
        },
      ])
      if (!reply?.ok) throw new Error(`the delivery of ${id} did not commit`)
    },
    reader() {
      const db = unwrap(openDatabase(file))
      opened.push(db)
      return db
    },
  }
}
