import type { KeyKind } from './keys'

/** Spec 8: rate limits apply per API key. Enterprise limits are custom and must be entered. */
export const planNames = ['sandbox', 'production', 'enterprise'] as const
export type PlanName = (typeof planNames)[number]

export interface PlanLimits {
  perMinute: number
  perSecond: number
}

export const planLimits: Record<Exclude<PlanName, 'enterprise'>, PlanLimits> = {
  sandbox: { perMinute: 100, perSecond: 20 },
  production: { perMinute: 1000, perSecond: 100 },
}

/** The operator's choice of plan for a key; validated by `PlanOverrideSchema` (plan-schemas.ts),
 * kept apart so the renderer can use these figures without bundling the schema library. */
export interface PlanOverride {
  plan: PlanName
  perMinute?: number
  perSecond?: number
}

/** The plan a key kind implies when the operator has not said otherwise. */
export const defaultPlanFor = (kind: KeyKind): PlanName => (kind === 'live' ? 'production' : 'sandbox')

export function limitsOf(
  kind: KeyKind,
  override?: PlanOverride,
): { plan: PlanName; limits: PlanLimits; inferred: boolean } {
  if (!override) {
    const plan = defaultPlanFor(kind)
    return { plan, limits: planLimits[plan as Exclude<PlanName, 'enterprise'>], inferred: true }
  }
  const base = override.plan === 'enterprise' ? { perMinute: 1, perSecond: 1 } : planLimits[override.plan]
  return {
    plan: override.plan,
    limits: {
      perMinute: override.perMinute ?? base.perMinute,
      perSecond: override.perSecond ?? base.perSecond,
    },
    inferred: false,
  }
}
