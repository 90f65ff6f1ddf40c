import { err, ok } from '../../shared/result'
import type { storageMethods } from '../../shared/contract/storage'
import { readRetentionState } from '../db/retention'
import { measureStorage } from '../db/usage'
import type { AppContext } from '../context'
import type { ApiHandlers } from '../transport/dispatch'

export function storageApi(ctx: AppContext): Pick<ApiHandlers, keyof typeof storageMethods> {
  return {
    'storage.status': async () => ok(ctx.storage.status()),
    'storage.usage': async () => {
      try {
        return ok({
          ...measureStorage(ctx.db, ctx.dataDir, ctx.db.name, ctx.config().storage.warnFreeMb),
          retention: readRetentionState(ctx.db),
        })
      } catch (error) {
        ctx.storage.failed('storage usage', error)
        return err('unavailable', `The database could not be read: ${(error as Error).message}`)
      }
    },
  }
}
