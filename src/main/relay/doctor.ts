import { existsSync } from 'node:fs'
import type { DoctorCheck } from '../../shared/contract/app'
import { doctorLine as line } from '../contribution'
import type { DoctorContribution } from '../contribution'
import { openRelayStore, parseStoreUrl } from './open'

async function storeChecks(stores: string[]): Promise<DoctorCheck[]> {
  return Promise.all(
    stores.map(async (text): Promise<DoctorCheck> => {
      const parsed = parseStoreUrl(text)
      const label = 'Store'
      if (!parsed.ok)
        return line({ area: 'store', label, state: 'fail', detail: parsed.error.message, fix: null })
      if (parsed.value.kind === 'sqlite' && !existsSync(parsed.value.file))
        return line({
          area: 'store',
          label,
          state: 'warn',
          detail: `${parsed.value.file} does not exist yet (the relay creates it)`,
          fix: null,
        })
      const store = await openRelayStore(parsed.value)
      if (!store.ok)
        return line({ area: 'store', label, state: 'fail', detail: store.error.message, fix: null })
      // Where it is, without a password (the store's own words).
      const shown = store.value.where
      await store.value.close()
      return line({
        area: 'store',
        label,
        state: 'ok',
        detail: `${shown} opens; its schema is current`,
        fix: null,
      })
    }),
  )
}

/** The stores given with --store: does each open, with its schema current? */
export const relayDoctor: DoctorContribution = {
  area: 'store',
  label: 'Stores',
  withoutConfig: 'runs',
  run: (ctx) => storeChecks(ctx.stores),
}
