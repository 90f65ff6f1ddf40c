import { z } from 'zod'
import { method } from './define'

/** Whether the database takes commits. Anything but `ok` is shown in red with the cause and the
 * fix; the back end keeps retrying and returns to `ok` by itself when the disk or the lock frees.
 * While it is not `ok`, the webhook listener answers 503 (the service redelivers later). */
export const StorageStatus = z.object({
  /** `stalled`: a relay's PostgreSQL did not commit within the commit deadline (frozen, a lock
   * held, overloaded); the deliveries meanwhile are answered 503. */
  state: z.enum(['ok', 'full', 'locked', 'failing', 'stalled']),
  /** The database file. */
  file: z.string(),
  /** What is wrong, in one sentence (`Disk full at /data: 0 B free.`); null while ok. */
  cause: z.string().nullable(),
  /** What the operator can do; null while ok. */
  fix: z.string().nullable(),
  /** SQLite's code of the last failure (`SQLITE_FULL`), null while ok or when unknown. */
  code: z.string().nullable(),
  /** Since when it is in this state (ms since the epoch). */
  since: z.number(),
  /** The last commit that went through, if any since start. */
  lastOkAt: z.number().nullable(),
  /** Writes that failed since start (deliveries answered 503, samples not stored, …). */
  failures: z.number().int(),
  /** Free space on the database's disk below `storage.warnFreeMb`: the sentence with the fix,
   * shown (amber) before a write fails; null or absent while there is room. */
  lowSpace: z.string().nullable().optional(),
})
export type StorageStatus = z.infer<typeof StorageStatus>

const perKind = z.object({
  events: z.number().int(),
  attempts: z.number().int(),
  alerts: z.number().int(),
  rejections: z.number().int(),
})

/** What retention did last and when it runs next (docs/storage.md#retention). */
export const RetentionStatus = z.object({
  lastRunAt: z.number().nullable(),
  lastRunMs: z.number().nullable(),
  nextRunAt: z.number().nullable(),
  /** Rows removed by the last run, per kind. */
  removed: perKind,
  /** Rows removed since the data dir began, per kind. */
  removedTotal: perKind,
  /** `retention.<kind>.days` in force at the last run (0 = keep). */
  days: perKind,
  error: z.string().nullable(),
})
export type RetentionStatus = z.infer<typeof RetentionStatus>

/** Disk use as `watchdesk storage` prints it. */
export const StorageUsage = z.object({
  dataDir: z.string(),
  database: z.string(),
  /** Every file under the data dir. */
  dataDirBytes: z.number(),
  /** The database with its WAL and shared-memory files. */
  databaseBytes: z.number(),
  events: z.number().int(),
  /** When the oldest stored event arrived (ms since the epoch); null when none is stored. */
  oldestEventAt: z.number().nullable(),
  /** Free space for this user on the data dir's disk; null when it cannot be read. */
  freeBytes: z.number().nullable(),
  warnFreeMb: z.number(),
  /** The sentence with the fix when free space is below storage.warnFreeMb, else null. */
  warning: z.string().nullable(),
  retention: RetentionStatus,
})
export type StorageUsage = z.infer<typeof StorageUsage>

export const storageMethods = {
  'storage.usage': method(
    'Disk use of the data dir (sizes, events stored, oldest event, free space) and what retention did last',
    z.object({}).strict(),
    StorageUsage,
  ),
  'storage.status': method(
    'Whether the database takes commits; the cause and the fix when it does not',
    z.object({}).strict(),
    StorageStatus,
  ),
}

export const storagePushes = {
  /** Sent on every change of state (not on every failure). */
  'storage.status': StorageStatus,
}
