import { z } from 'zod'
import { planNames } from './plans'
import type { PlanOverride } from './plans'

export const PlanNameSchema = z.enum(planNames)

export const PlanOverrideSchema = z
  .object({
    plan: PlanNameSchema,
    perMinute: z.number().int().min(1).max(1_000_000).optional(),
    perSecond: z.number().int().min(1).max(100_000).optional(),
  })
  .strict()
  .refine((p) => p.plan !== 'enterprise' || (p.perMinute !== undefined && p.perSecond !== undefined), {
    message: 'an enterprise plan has custom limits: give perMinute and perSecond',
  }) satisfies z.ZodType<PlanOverride>
