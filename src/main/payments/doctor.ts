import type { Config } from '../../shared/config'
import type { DoctorCheck } from '../../shared/contract/app'
import { doctorLine as line } from '../contribution'
import type { DoctorContext, DoctorContribution } from '../contribution'

/** The features the payments API serves, the scope each needs, and how the doctor probes it. */
const features = [
  { name: 'wallets', scope: 'wallets:read', probe: 'wallets' },
  { name: 'webhook endpoints (list)', scope: 'webhooks:read', probe: 'endpoints' },
  { name: 'Connect, create and delete endpoints', scope: 'webhooks:write', probe: null },
] as const

async function paymentsChecks(
  input: DoctorContext,
  config: Config,
  keychainDown: string | null,
): Promise<DoctorCheck[]> {
  const label = 'Payments API'
  if (!config.apiBaseUrl)
    return [
      line({
        area: 'payments',
        label,
        state: 'warn',
        detail: 'apiBaseUrl is not set: wallets and webhook endpoints are unavailable',
        fix: 'watchdesk config set apiBaseUrl https://api.example.com',
      }),
    ]
  const service = input.payments()
  if (!service.ok)
    return [line({ area: 'payments', label, state: 'fail', detail: service.error.message, fix: null })]
  const status = await service.value.status()
  const active = status.ok ? status.value.activeKey : null
  if (!active) {
    if (keychainDown)
      return [
        line({
          area: 'payments',
          label,
          state: 'fail',
          detail: `blocked by: ${keychainDown}`,
          fix: null,
          blockedBy: keychainDown,
        }),
      ]
    return [
      line({
        area: 'payments',
        label,
        state: 'warn',
        detail: `${config.apiBaseUrl}: no API key stored`,
        fix: 'printf %s "$KEY" | watchdesk keys set main --activate   (or WATCHDESK_API_KEY)',
      }),
    ]
  }
  const test = await service.value.testKey({})
  if (!test.ok)
    return [line({ area: 'payments', label, state: 'fail', detail: test.error.message, fix: null })]
  const t = test.value
  const refusedForScope = !t.works && t.status === 403
  if (!t.works && !refusedForScope)
    return [
      line({
        area: 'payments',
        label,
        state: 'fail',
        detail: t.message,
        fix: t.status === 401 ? 'printf %s "$KEY" | watchdesk keys set main --activate' : null,
      }),
    ]
  const apiLine = line({
    area: 'payments',
    label,
    state: 'ok',
    detail: `${t.baseUrl}: the key "${active.name}" (${active.kind}) is accepted`,
    fix: null,
  })
  const endpoints = await service.value.listEndpoints()
  const found = features.map((f) => {
    if (f.probe === 'wallets') return { ...f, has: t.works }
    if (f.probe === 'endpoints')
      return { ...f, has: endpoints.ok ? true : endpoints.error.code === 'forbidden' ? false : null }
    return { ...f, has: null }
  })
  const lacking = found.filter((f) => f.has === false)
  const words = found
    .map((f) =>
      f.has === true
        ? `${f.name}: yes (${f.scope})`
        : f.has === false
          ? `${f.name}: lacks ${f.scope}`
          : `${f.name}: needs ${f.scope} (${f.probe ? 'not answered' : 'not probed: it would write'})`,
    )
    .join(' · ')
  const scopesLine = line({
    area: 'scopes',
    label: 'Key scopes',
    state: lacking.length > 0 ? 'warn' : 'ok',
    detail: words,
    fix:
      lacking.length > 0
        ? `Create a key with ${lacking.map((f) => f.scope).join(', ')} at the service and store it: printf %s "$KEY" | watchdesk keys set main --activate`
        : null,
  })
  const pathLine =
    !endpoints.ok && endpoints.error.code === 'not_found'
      ? [
          line({
            area: 'scopes',
            label: 'Endpoints path',
            state: 'warn',
            detail: endpoints.error.message,
            fix: null,
          }),
        ]
      : []
  return [apiLine, scopesLine, ...pathLine]
}

/** The payments API with the active key, and its scopes per feature. */
export const paymentsDoctor: DoctorContribution = {
  area: 'payments',
  label: 'Payments API',
  withoutConfig: 'blocked',
  run: (ctx) => paymentsChecks(ctx, ctx.config, ctx.keychainDown),
}
