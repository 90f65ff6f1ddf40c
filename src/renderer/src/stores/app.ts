import { create } from 'zustand'
import type { ResponseOf } from '../../../shared/contract'
import type { ApiError } from '../../../shared/result'
import { backend } from '../api'

type Health = ResponseOf<'app.health'>
type Settings = ResponseOf<'settings.get'>

interface AppState {
  health: Health | null
  settings: Settings | null
  error: ApiError | null
  load(): Promise<void>
}

export const useAppStore = create<AppState>((set) => ({
  health: null,
  settings: null,
  error: null,
  async load() {
    const [health, settings] = await Promise.all([
      backend().call('app.health', {}),
      backend().call('settings.get', {}),
    ])
    set({
      health: health.ok ? health.value : null,
      settings: settings.ok ? settings.value : null,
      error: !health.ok ? health.error : !settings.ok ? settings.error : null,
    })
  },
}))
