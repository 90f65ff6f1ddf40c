import type { Config } from '../../shared/config'
import type { PlanOverride } from '../../shared/payments'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'

/** Where payments reads and writes its configuration: the effective config, and the one writer
 * of the operator's saved config (through the context's `saveConfig`, which validates it and
 * tells the other capabilities). */
export interface ConfigAccess {
  config(): Config
  /** The operator's saved config (what `saveConfig` rewrites). */
  savedConfig(): Record<string, unknown>
  saveConfig(next: Record<string, unknown>): Promise<Result<Config>>
}

export type PaymentsSettings = ReturnType<typeof createPaymentsSettings>

/** Payments' own config keys: the selected key name, plans per key, businesses and the
 * webhook endpoint paths. Every change is one read-change-write of the saved config. */
export function createPaymentsSettings(access: ConfigAccess, env: NodeJS.ProcessEnv) {
  async function updateSavedConfig(
    change: (saved: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<Result<void>> {
    const written = await access.saveConfig(change(access.savedConfig()))
    return written.ok ? ok(undefined) : written
  }

  return {
    config: () => access.config(),

    /** WATCHDESK_BUSINESS_ID wins over the selected business. */
    businessId(): { id: string | null; fromEnvironment: boolean } {
      const fromEnv = env.WATCHDESK_BUSINESS_ID?.trim()
      if (fromEnv) return { id: fromEnv, fromEnvironment: true }
      return { id: access.config().selectedBusinessId ?? null, fromEnvironment: false }
    },

    selectKeyName: (name: string) => updateSavedConfig((saved) => ({ ...saved, apiKeyName: name })),

    /** Drops `apiKeyName` when it names this key (the key was removed); writes nothing otherwise. */
    async forgetKeyName(name: string): Promise<Result<void>> {
      if (access.savedConfig().apiKeyName !== name) return ok(undefined)
      return updateSavedConfig(({ apiKeyName: _dropped, ...rest }) => rest)
    },

    setPlan: (name: string, plan: PlanOverride | null) =>
      updateSavedConfig((saved) => {
        const plans = { ...((saved.apiKeyPlans as Record<string, unknown> | undefined) ?? {}) }
        if (plan) plans[name] = plan
        else delete plans[name]
        return { ...saved, apiKeyPlans: plans }
      }),

    async setBusinesses(
      businesses: { id: string; name: string }[],
      selected: string | null,
    ): Promise<Result<void>> {
      if (selected && !businesses.some((b) => b.id === selected)) {
        return err('bad_request', `The selected business ${selected} is not in the list; add it first.`)
      }
      const ids = businesses.map((b) => b.id)
      const duplicate = ids.find((id, i) => ids.indexOf(id) !== i)
      if (duplicate) return err('bad_request', `The business ${duplicate} is listed twice.`)
      return updateSavedConfig(({ selectedBusinessId: _old, ...rest }) => ({
        ...rest,
        businesses,
        ...(selected ? { selectedBusinessId: selected } : {}),
      }))
    },

    setEndpointPaths: (paths: Config['webhookEndpoints']) =>
      updateSavedConfig((saved) => ({ ...saved, webhookEndpoints: paths })),
  }
}
