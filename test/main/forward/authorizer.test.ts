import { describe, expect, it } from 'vitest'
import { authorizerOf, resolveTargets } from '../../../src/main/forward/targets'
import type { AdhocTarget } from '../../../src/main/forward/targets'
import type { ForwardTargetConfig } from '../../../src/shared/config'

const forward = (targets: Record<string, ForwardTargetConfig>, authorizationTarget?: string) => ({
  targets,
  authorizationBudgetMs: 1500,
  probeSeconds: 10,
  maxAgeHours: 24,
  ...(authorizationTarget ? { authorizationTarget } : {}),
})
const choose = (f: ReturnType<typeof forward>, adhoc: AdhocTarget[] = []) =>
  authorizerOf(f, resolveTargets(f, adhoc, new Map()))

describe('which target answers card.authorization.request', () => {
  it('is the only subscribed target, without a warning', () => {
    const f = forward({ audit: { url: 'http://a/', events: ['funding.*'] }, app: { url: 'http://b/' } })
    expect(choose(f)).toEqual({ name: 'app', warning: null })
  })

  it('is the first subscribed one in the config file (not by name), with a warning naming all', () => {
    const f = forward({ zeta: { url: 'http://z/' }, alpha: { url: 'http://a/', events: ['card.*'] } })
    const chosen = choose(f, [{ url: 'http://localhost:3000/hook' }])
    expect(chosen.name).toBe('zeta')
    expect(chosen.warning).toMatch(
      /^3 targets subscribe .*\(zeta, alpha, url:http:\/\/localhost:3000\/hook\)/,
    )
  })

  it('is forward.authorizationTarget when it subscribes; otherwise nobody, with the fix', () => {
    const targets = { zeta: { url: 'http://z/' }, alpha: { url: 'http://a/' } }
    expect(choose(forward(targets, 'alpha'))).toEqual({ name: 'alpha', warning: null })
    const missing = choose(forward(targets, 'beta'))
    expect(missing.name).toBeNull()
    expect(missing.warning).toMatch(/names beta, which is not an enabled target subscribing/)
    const disabled = choose(forward({ ...targets, beta: { url: 'http://b/', enabled: false } }, 'beta'))
    expect(disabled.name).toBeNull()
  })

  it('is nobody when no enabled target subscribes', () => {
    expect(choose(forward({ a: { url: 'http://a/', events: ['funding.*'] } }))).toEqual({
      name: null,
      warning: null,
    })
  })
})
