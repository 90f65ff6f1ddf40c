import { z } from 'zod'
import type { KeyKind } from './keys'

/** Spec 8: rate limits apply per API key. Enterprise limits are custom and must be entered. */
export const planNames = ['sandbox', 'production', 'enterprise'] as const
export const PlanName = z.enum(planNames)
export type PlanName = z.infer<typeof PlanName>

export interface PlanLimits {
  perMinute: number
  perSecond: number
}

export const planLimits: Record<Exclude<PlanName, 'enterprise'>, PlanLimits> = {
  sandbox: { perMinute: 100, perSecond: 20 },
  production: { perMinute: 1000, perSecond: 100 },
}

export const PlanOverride = z
  .object({
    plan: PlanName,
    perMinute: z.number().int().min(1).max(1_000_000).optional(),
    perSecond: z.number().int().min(1).max(100_000).optional(),
  })
  .strict()
  .refine((p) => p.plan !== 'enterprise' || (p.perMinute !== undefined && p.perSecond !== undefined), {
    message: 'an enterprise plan has custom limits: give perMinute and perSecond',
  })
export type PlanOverride = z.infer<typeof PlanOverride>

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
