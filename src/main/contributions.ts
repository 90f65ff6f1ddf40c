import { joinRetentionRules } from './db/retention'
import type { Contribution } from './contribution'
import type { CommitHook } from './db'
import { enqueueOnCommit, followResyncHooks } from './forward'
import { resyncOnConflictHooks } from './relay'
import { syncedEventHooks } from './sources'
import { recordArrivalOnCommit } from './replay'
import { contribution as webhooks } from './webhooks'
import { contribution as chains } from './chains'
import { contribution as payments } from './payments'
import { contribution as forward } from './forward'
import { contribution as relay } from './relay'
import { contribution as sources } from './sources'
import { contribution as alerts } from './alerts'
import { contribution as replay } from './replay'
import { contribution as drift } from './drift'
import { contribution as disablement } from './disablement'

/** Every capability's contribution, in one list the composers iterate (docs/architecture.md,
 * "Contributions"). The order is the order of their doctor checks, and of their statements:
 * forward's keep rule on an event is tested before alerts'. The desktop shell contributes nothing here (and loads Electron). */
export const contributions: readonly Contribution[] = [
  payments,
  chains,
  webhooks,
  forward,
  sources,
  relay,
  alerts,
  replay,
  drift,
  disablement,
]

/** The retention rules of the console's database (and of a relay on a data dir a console used). */
export const retentionRules = joinRetentionRules(contributions.map((c) => c.retention ?? {}))

/** Every statement added to an events commit, by commit: each hook is owned by the capability
 * whose tables it writes, and test/main/commit-hooks.test.ts prepares them all against the latest
 * schema with the parameters the commit binds. */
export const commitHooks = {
  /** The listener's commit: a first delivery is queued for forwarding; each arrival is recorded
   * for the replay sentinel. */
  listener: [enqueueOnCommit, recordArrivalOnCommit],
  /** A synced event's commit: the source and its cursor, then the same outbox statement (only a
   * first insert queues, so an event also received locally is forwarded once). */
  sources: [...syncedEventHooks, enqueueOnCommit],
  /** The relay's own SQLite store (`watchdesk relay`, composed inside the relay): listed here so
   * every hook of the database is in this one list and tested. */
  relay: [...resyncOnConflictHooks, ...followResyncHooks],
} as const satisfies Record<string, readonly CommitHook[]>
