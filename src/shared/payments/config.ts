import { z } from 'zod'
import { PlanOverrideSchema } from './plan-schemas'

/** Payments' config keys (spread into the Config schema). Non-secret only: keys live in the keychain. */
export const EndpointPathsConfig = z
  .object({
    /** The spec gives no list or delete path; these are the common convention. */
    listPath: z
      .string()
      .regex(/^\/\S*$/, 'a path starts with /')
      .default('/v1/webhooks'),
    deletePath: z
      .string()
      .regex(/^\/\S*$/, 'a path starts with /')
      .default('/v1/webhooks'),
    deleteParam: z
      .string()
      .regex(/^[A-Za-z0-9_.-]+$/)
      .default('id'),
  })
  .strict()

export const BusinessConfig = z
  .object({
    id: z.string().regex(/^biz_[A-Za-z0-9_-]+$/, 'a business id starts with biz_'),
    name: z.string().max(80).default(''),
  })
  .strict()

export const PaymentsConfigShape = {
  /** Name of the stored key to use (`api-key:<name>`); WATCHDESK_API_KEY wins when set. */
  apiKeyName: z.string().optional(),
  /** Plan per key name, over the plan inferred from the key kind (spec 8). */
  apiKeyPlans: z.record(z.string(), PlanOverrideSchema).default({}),
  businesses: z.array(BusinessConfig).default([]),
  /** Sent as X-Business-Id; WATCHDESK_BUSINESS_ID wins when set. */
  selectedBusinessId: z
    .string()
    .regex(/^biz_[A-Za-z0-9_-]+$/, 'a business id starts with biz_')
    .optional(),
  webhookEndpoints: EndpointPathsConfig.default(EndpointPathsConfig.parse({})),
  walletsRefreshMs: z.number().int().min(5_000).max(3_600_000).default(30_000),
  apiTimeoutMs: z.number().int().min(500).max(120_000).default(10_000),
}
