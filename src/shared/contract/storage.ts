import { z } from 'zod'
import { method } from './define'

/** Whether the database takes commits. Anything but `ok` is shown in red with the cause and the
 * fix; the back end keeps retrying and returns to `ok` by itself when the disk or the lock frees.
 * While it is not `ok`, the webhook listener answers 503 (the service redelivers later). */
export const StorageStatus = z.object({
  state: z.enum(['ok', 'full', 'locked', 'failing']),
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

export const storageMethods = {
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
