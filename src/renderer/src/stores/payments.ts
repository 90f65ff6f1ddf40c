import { create } from 'zustand'
import type {
  Business,
  CreatedEndpoint,
  EndpointPaths,
  KeyTest,
  PaymentsStatus,
  StaleEndpoint,
  WalletsResult,
  WebhookEndpoint,
} from '../../../shared/contract/payments'
import type { RequestOf, ResponseOf } from '../../../shared/contract'
import type { PlanOverride } from '../../../shared/payments/plans'
import { DisposableStore } from '../../../shared/disposable'
import type { Disposable } from '../../../shared/disposable'
import type { ApiError, Result } from '../../../shared/result'
import { backend } from '../api'

type Connected = ResponseOf<'payments.webhooks.connect'>

/** The secret of a just-created endpoint: held here only until the operator dismisses it. */
export interface ShownOnce {
  endpointId: string
  secret: string | null
  account: string
  stored: boolean
  problem: string | null
}

export interface PaymentsState {
  status: PaymentsStatus | null
  statusError: ApiError | null
  wallets: WalletsResult | null
  walletsError: ApiError | null
  walletsLoading: boolean
  endpoints: WebhookEndpoint[] | null
  endpointsError: ApiError | null
  shownOnce: ShownOnce | null
  connected: Connected | null
  /** "Clean up endpoints": what it proposes to delete (null until asked), and the last result. */
  stale: { stale: StaleEndpoint[]; total: number } | null
  staleLoading: boolean
  cleanupResult: ResponseOf<'payments.webhooks.cleanup'> | null
  /** The answer of the GET /v1/wallets made right after a key was stored. */
  keyTest: KeyTest | null
  /** The last write's failure (create, delete, connect, settings), shown where the form is. */
  writeError: ApiError | null
  /** The last endpoint write's failure (create, delete, connect). */
  endpointWriteError: ApiError | null
  busy: boolean
  loadStatus(): Promise<void>
  /** `keep`: store it even when the service refuses it. */
  setKey(name: string, key: string, activate: boolean, keep?: boolean): Promise<boolean>
  removeKey(name: string): Promise<void>
  selectKey(name: string): Promise<void>
  setPlan(name: string, plan: PlanOverride | null): Promise<void>
  setBusinesses(businesses: Business[], selected: string | null): Promise<boolean>
  setEndpointPaths(paths: EndpointPaths): Promise<boolean>
  loadWallets(): Promise<void>
  loadEndpoints(): Promise<void>
  /** `confirmLive`: the operator confirmed a write with a live key (effects.ts asks). */
  createEndpoint(
    input: { url: string; events: string[]; description?: string },
    confirmLive: boolean,
  ): Promise<boolean>
  deleteEndpoint(id: string, confirmLive: boolean): Promise<void>
  connect(input: { publicUrl: string; events: string[] }, confirmLive: boolean): Promise<boolean>
  loadStale(): Promise<void>
  cleanup(ids: string[], confirmLive: boolean): Promise<void>
  dismissSecret(): void
  /** After the back end came back: what it shows may have changed. */
  resync(): void
  attach(): Disposable
}

export const usePaymentsStore = create<PaymentsState>((set, get) => {
  /** Runs a write that answers the new status, keeping the form's error in one place. */
  async function statusWrite<
    K extends
      | 'payments.keys.set'
      | 'payments.keys.remove'
      | 'payments.keys.select'
      | 'payments.keys.plan'
      | 'payments.businesses.set'
      | 'payments.endpointPaths.set',
  >(name: K, request: RequestOf<K>): Promise<boolean> {
    set({ busy: true, writeError: null })
    const result = (await backend().call(name, request)) as Result<PaymentsStatus>
    set(result.ok ? { status: result.value, busy: false } : { writeError: result.error, busy: false })
    return result.ok
  }

  const rememberSecret = (created: CreatedEndpoint) =>
    set({
      shownOnce: {
        endpointId: created.endpoint.id,
        secret: created.secretShownOnce,
        account: created.secretAccount,
        stored: created.secretStored,
        problem: created.secretProblem,
      },
    })

  return {
    status: null,
    statusError: null,
    wallets: null,
    walletsError: null,
    walletsLoading: false,
    endpoints: null,
    endpointsError: null,
    shownOnce: null,
    connected: null,
    stale: null,
    staleLoading: false,
    cleanupResult: null,
    keyTest: null,
    writeError: null,
    endpointWriteError: null,
    busy: false,

    async loadStatus() {
      const result = await backend().call('payments.status', {})
      set(result.ok ? { status: result.value, statusError: null } : { statusError: result.error })
    },
    async setKey(name, key, activate, keep = false) {
      set({ keyTest: null })
      const stored = await statusWrite('payments.keys.set', { name, key, activate, keep })
      if (!stored) return false
      // Tested when stored: one GET /v1/wallets says whether it works and what it reaches.
      const tested = await backend().call('payments.keys.test', { name })
      set({ keyTest: tested.ok ? tested.value : null })
      return true
    },
    async removeKey(name) {
      await statusWrite('payments.keys.remove', { name })
    },
    async selectKey(name) {
      await statusWrite('payments.keys.select', { name })
    },
    async setPlan(name, plan) {
      await statusWrite('payments.keys.plan', { name, plan })
    },
    setBusinesses: (businesses, selectedBusinessId) =>
      statusWrite('payments.businesses.set', { businesses, selectedBusinessId }),
    setEndpointPaths: (paths) => statusWrite('payments.endpointPaths.set', paths),

    async loadWallets() {
      set({ walletsLoading: true })
      const result = await backend().call('payments.wallets.list', {})
      set(
        result.ok
          ? { wallets: result.value, walletsError: null, walletsLoading: false }
          : { walletsError: result.error, walletsLoading: false },
      )
    },
    async loadEndpoints() {
      const result = await backend().call('payments.webhooks.list', {})
      set(
        result.ok
          ? { endpoints: result.value.endpoints, endpointsError: null }
          : { endpointsError: result.error },
      )
    },
    async createEndpoint(input, confirmed) {
      set({ busy: true, endpointWriteError: null, connected: null })
      const result = await backend().call('payments.webhooks.create', { ...input, confirmLive: confirmed })
      set({ busy: false })
      if (!result.ok) {
        set({ endpointWriteError: result.error })
        return false
      }
      rememberSecret(result.value)
      void get().loadEndpoints()
      return true
    },
    async deleteEndpoint(id, confirmed) {
      set({ busy: true, endpointWriteError: null })
      const result = await backend().call('payments.webhooks.delete', { id, confirmLive: confirmed })
      set(result.ok ? { busy: false } : { busy: false, endpointWriteError: result.error })
      if (get().shownOnce?.endpointId === id) set({ shownOnce: null })
      void get().loadEndpoints()
    },
    async connect(input, confirmed) {
      set({ busy: true, endpointWriteError: null, connected: null })
      const result = await backend().call('payments.webhooks.connect', { ...input, confirmLive: confirmed })
      set({ busy: false })
      if (!result.ok) {
        set({ endpointWriteError: result.error })
        return false
      }
      const c = result.value
      if (c.endpoint && c.secretShownOnce !== null)
        set({
          shownOnce: {
            endpointId: c.endpoint.id,
            secret: c.secretShownOnce,
            account: c.secretAccount ?? '',
            stored: c.secretStored,
            problem: c.secretProblem,
          },
        })
      set({ connected: c })
      void get().loadEndpoints()
      return c.test.outcome === 'arrived'
    },
    async loadStale() {
      set({ staleLoading: true, endpointWriteError: null, cleanupResult: null })
      const result = await backend().call('payments.webhooks.stale', {})
      set(
        result.ok
          ? { stale: result.value, staleLoading: false }
          : { stale: null, staleLoading: false, endpointWriteError: result.error },
      )
    },
    async cleanup(ids, confirmed) {
      set({ busy: true, endpointWriteError: null })
      const result = await backend().call('payments.webhooks.cleanup', { ids, confirmLive: confirmed })
      set(
        result.ok
          ? { busy: false, cleanupResult: result.value, stale: null }
          : { busy: false, endpointWriteError: result.error },
      )
      void get().loadEndpoints()
    },
    dismissSecret: () => set({ shownOnce: null }),

    resync() {
      const { status, endpoints } = get()
      if (status) void get().loadStatus()
      if (endpoints) void get().loadEndpoints()
    },

    attach() {
      void get().loadStatus()
      const owned = new DisposableStore()
      owned.add(
        backend().onPush('payments.rateLimit', (rateLimit) => {
          const status = get().status
          if (status) set({ status: { ...status, rateLimit } })
        }),
      )
      owned.add(backend().onPush('payments.changed', () => void get().loadStatus()))
      return owned
    },
  }
})
