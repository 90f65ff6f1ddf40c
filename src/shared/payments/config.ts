import { z } from 'zod'
import { businessIdPattern, businessIdRule } from './keys'
import { PlanOverrideSchema } from './plan-schemas'

/** Where the spec is silent on webhook endpoints' list and delete paths: the common convention. */
export const defaultEndpointPaths = {
  listPath: '/v1/webhooks',
  deletePath: '/v1/webhooks',
  deleteParam: 'id',
}

const apiPath = z.string().regex(/^\/\S*$/, 'a path starts with /')
const queryParamName = z
  .string()
  .regex(/^[A-Za-z0-9_.-]+$/, 'a query parameter name is letters, digits, _ . -')

/** The paths as the operator sets them (all three given). */
export const EndpointPaths = z
  .object({ listPath: apiPath, deletePath: apiPath, deleteParam: queryParamName })
  .strict()
export type EndpointPaths = z.infer<typeof EndpointPaths>

/** The same paths in the config file, where each one left out is the convention. */
export const EndpointPathsConfig = z
  .object({
    listPath: apiPath.default(defaultEndpointPaths.listPath),
    deletePath: apiPath.default(defaultEndpointPaths.deletePath),
    deleteParam: queryParamName.default(defaultEndpointPaths.deleteParam),
  })
  .strict()

export const BusinessId = z.string().regex(businessIdPattern, businessIdRule)

export const Business = z
  .object({
    id: BusinessId,
    name: z.string().max(80).default(''),
  })
  .strict()
export type Business = z.infer<typeof Business>

export const PaymentsConfigShape = {
  /** Name of the stored key to use (`api-key:<name>`); WATCHDESK_API_KEY wins when set. */
  apiKeyName: z.string().optional(),
  /** Plan per key name, over the plan inferred from the key kind (spec 8). */
  apiKeyPlans: z.record(z.string(), PlanOverrideSchema).default({}),
  businesses: z.array(Business).default([]),
  /** Sent as X-Business-Id; WATCHDESK_BUSINESS_ID wins when set. */
  selectedBusinessId: BusinessId.optional(),
  webhookEndpoints: EndpointPathsConfig.default(defaultEndpointPaths),
  walletsRefreshMs: z.number().int().min(5_000).max(3_600_000).default(30_000),
  apiTimeoutMs: z.number().int().min(500).max(120_000).default(10_000),
}
