import { ok } from '../../shared/result'
import type { storageMethods } from '../../shared/contract/storage'
import type { AppContext } from '../context'
import type { ApiHandlers } from '../transport/dispatch'

export function storageApi(ctx: AppContext): Pick<ApiHandlers, keyof typeof storageMethods> {
  return {
    'storage.status': async () => ok(ctx.storage.status()),
  }
}
