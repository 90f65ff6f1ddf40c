import { create } from 'zustand'
import type { KeyTest, PublicUrlState } from '../../../shared/contract/payments'
import type {
  FieldProblem,
  ProjectUidState,
  ReferenceTest,
  RpcBaseTest,
  SettingsUpdate,
} from '../../../shared/contract/settings'
import { DisposableStore } from '../../../shared/disposable'
import type { Disposable } from '../../../shared/disposable'
import type { ApiError, Result } from '../../../shared/result'
import { backend } from '../api'
import { useAppStore } from './app'

/** Settings' writes and tests. The form values live in the components; what the back end answered
 * (saved, each field's problem, each test's result) lives here. One writer: this store. */
interface SettingsState {
  projectUid: ProjectUidState | null
  publicUrl: PublicUrlState | null
  apiTest: KeyTest | null
  rpcTest: RpcBaseTest | null
  testing: 'api' | 'rpc' | null
  error: ApiError | null
  /** Saves dotted keys; answers the problems by key (empty when saved). */
  update(set: Record<string, unknown>, unset: string[]): Promise<FieldProblem[]>
  testApi(apiBaseUrl: string): Promise<void>
  testRpc(rpcBaseUrl: string): Promise<void>
  /** Per "<service id>:<name or url>": the last Test of a reference, or 'testing'. */
  referenceTests: Record<string, ReferenceTest | 'testing'>
  testReference(input: {
    serviceId: number
    name?: string
    url?: string
    headers?: Record<string, string>
  }): Promise<void>
  addReference(input: {
    serviceId: number
    name: string
    url: string
    headers?: Record<string, string>
  }): Promise<FieldProblem[]>
  removeReference(serviceId: number, name: string): Promise<FieldProblem[]>
  loadProjectUid(): Promise<void>
  setProjectUid(uid: string): Promise<boolean>
  removeProjectUid(): Promise<void>
  checkPublicUrl(): Promise<void>
  /** The last check's answer (no new check) and every change after it: the Overview's tile. */
  followPublicUrl(): Disposable
  attach(): Disposable
  /** Reloads the project uid and the public URL's last check once loaded (no new check). */
  resync(): void
}

export const referenceTestKey = (serviceId: number, what: string) => `${serviceId}:${what}`

export const useSettingsStore = create<SettingsState>((set, get) => {
  /** A write's answer: the problems by key (empty when saved); the settings reload once saved. */
  const saved = (result: Result<SettingsUpdate, ApiError>): FieldProblem[] => {
    if (!result.ok) {
      set({ error: result.error })
      return [{ key: '', message: result.error.message }]
    }
    set({ error: null })
    if (result.value.saved) void useAppStore.getState().load()
    return result.value.problems
  }
  return {
    projectUid: null,
    publicUrl: null,
    apiTest: null,
    rpcTest: null,
    testing: null,
    error: null,
    referenceTests: {},

    async update(values, unset) {
      return saved(await backend().call('settings.update', { set: values, unset }))
    },
    async testApi(apiBaseUrl) {
      set({ testing: 'api', apiTest: null })
      const result = await backend().call('settings.test.api', apiBaseUrl ? { apiBaseUrl } : {})
      set(result.ok ? { apiTest: result.value, testing: null } : { error: result.error, testing: null })
    },
    async testRpc(rpcBaseUrl) {
      set({ testing: 'rpc', rpcTest: null })
      const result = await backend().call('settings.test.rpc', rpcBaseUrl ? { rpcBaseUrl } : {})
      set(result.ok ? { rpcTest: result.value, testing: null } : { error: result.error, testing: null })
    },
    async testReference(input) {
      const key = referenceTestKey(input.serviceId, input.name ?? input.url ?? '')
      set({ referenceTests: { ...get().referenceTests, [key]: 'testing' } })
      const result = await backend().call('settings.test.reference', input)
      if (!result.ok) {
        const { [key]: _, ...rest } = get().referenceTests
        set({ error: result.error, referenceTests: rest })
        return
      }
      set({ referenceTests: { ...get().referenceTests, [key]: result.value } })
    },
    async addReference(input) {
      return saved(await backend().call('settings.references.add', input))
    },
    async removeReference(serviceId, name) {
      return saved(await backend().call('settings.references.remove', { serviceId, name }))
    },
    async loadProjectUid() {
      const result = await backend().call('settings.projectUid.get', {})
      set(result.ok ? { projectUid: result.value } : { error: result.error })
    },
    async setProjectUid(uid) {
      const result = await backend().call('settings.projectUid.set', { uid })
      set(result.ok ? { projectUid: result.value, error: null } : { error: result.error })
      return result.ok
    },
    async removeProjectUid() {
      const result = await backend().call('settings.projectUid.remove', {})
      set(result.ok ? { projectUid: result.value, error: null } : { error: result.error })
    },
    async checkPublicUrl() {
      const result = await backend().call('payments.publicUrl.check', {})
      if (result.ok) set({ publicUrl: result.value })
    },
    followPublicUrl() {
      void backend()
        .call('payments.publicUrl.state', {})
        .then((r) => r.ok && set({ publicUrl: r.value }))
      return backend().onPush('payments.publicUrl', (publicUrl) => set({ publicUrl }))
    },
    attach() {
      void get().loadProjectUid()
      void get().checkPublicUrl()
      const owned = new DisposableStore()
      owned.add(backend().onPush('payments.publicUrl', (publicUrl) => set({ publicUrl })))
      // The form shows the saved values: any change (Connect saving listener.publicUrl, the CLI, an
      // editor) reloads them.
      owned.add(backend().onPush('app.config', () => void useAppStore.getState().load()))
      return owned
    },
    resync() {
      if (get().projectUid) void get().loadProjectUid()
      if (get().publicUrl)
        void backend()
          .call('payments.publicUrl.state', {})
          .then((r) => r.ok && set({ publicUrl: r.value }))
    },
  }
})
