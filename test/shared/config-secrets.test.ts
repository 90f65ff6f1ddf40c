import { describe, expect, it } from 'vitest'
import {
  absentSecretMark,
  absentSecrets,
  configSecretValues,
  keepMaskedSecrets,
  maskConfigSecrets,
  maskConfigUrl,
  stripConfigSecrets,
  urlWithoutCredentials,
} from '../../src/shared/config-secrets'

const token = 'TOKEN-forward-bearer-0001'
const apikey = 'APIKEY-forward-query-0002'
const refHeader = 'REFHEADER-reference-0003'
const refKey = 'REFKEY-reference-query-0004'
const password = 'PASSWORD-source-0005'

const config = {
  pollIntervalMs: 5000,
  forward: {
    targets: {
      hook: {
        url: `https://hooks.example/in?apikey=${apikey}&team=ops`,
        headers: { Authorization: `Bearer ${token}` },
      },
    },
  },
  chains: {
    '1': {
      references: [
        { name: 'alchemy', url: `https://eth.example/v2?key=${refKey}`, headers: { 'x-api-key': refHeader } },
      ],
    },
  },
  sources: { team: { url: `https://relay:${password}@relay.example:7422` } },
}

const planted = [token, apikey, refHeader, refKey, password]
const holdsNone = (value: unknown) => {
  const text = JSON.stringify(value)
  for (const secret of planted) expect(text).not.toContain(secret)
}

describe('the one rule for secrets in config.json', () => {
  it('masks header values, userinfo and credential-named query parameters, and nothing else', () => {
    const masked = maskConfigSecrets(config)
    holdsNone(masked)
    expect(masked.forward.targets.hook.url).toBe('https://hooks.example/in?apikey=…0002&team=ops')
    expect(masked.forward.targets.hook.headers.Authorization).toBe('…0001')
    expect(masked.sources.team.url).toBe('https://…@relay.example:7422')
    expect(masked.pollIntervalMs).toBe(5000)
    expect(maskConfigUrl('https://h.example/x?sig=abc&page=2')).toBe('https://h.example/x?sig=…&page=2')
    expect(config.forward.targets.hook.headers.Authorization).toBe(`Bearer ${token}`)
  })

  it('a backup copy holds none of them, and restore can list each one left out', () => {
    const stripped = stripConfigSecrets(config)
    holdsNone(stripped.config)
    expect(stripped.absent.map((a) => a.key).sort()).toEqual([
      'chains.1.references.0.headers.x-api-key',
      'chains.1.references.0.url',
      'forward.targets.hook.headers.Authorization',
      'forward.targets.hook.url',
      'sources.team.url',
    ])
    expect(absentSecrets(stripped.config)).toEqual(expect.arrayContaining(stripped.absent))
    expect(absentSecrets(stripped.config)).toHaveLength(5)
    expect(stripped.config.forward.targets.hook.url).toBe(
      `https://hooks.example/in?apikey=${absentSecretMark}&team=ops`,
    )
  })

  it('a masked value sent back keeps the stored secret; a typed one replaces it', () => {
    const draft = structuredClone(maskConfigSecrets(config)) as Record<string, unknown>
    const targets = (draft.forward as typeof config.forward).targets
    targets.hook.url = targets.hook.url.replace('/in?', '/in2?')
    ;(draft.chains as typeof config.chains)['1'].references[0]!.headers['x-api-key'] = 'typed-new-value'
    expect(keepMaskedSecrets(draft, [config])).toEqual([])
    expect(targets.hook.url).toBe(`https://hooks.example/in2?apikey=${apikey}&team=ops`)
    expect(targets.hook.headers.Authorization).toBe(`Bearer ${token}`)
    expect((draft.chains as typeof config.chains)['1'].references[0]!.headers['x-api-key']).toBe(
      'typed-new-value',
    )
    expect((draft.sources as typeof config.sources).team.url).toBe(config.sources.team.url)
  })

  it('a masked secret is never sent to another origin than the one it was typed for', () => {
    const draft = structuredClone(maskConfigSecrets(config)) as Record<string, unknown>
    const targets = (draft.forward as typeof config.forward).targets
    targets.hook.url = targets.hook.url.replace('hooks.example', 'elsewhere.example')
    const problems = keepMaskedSecrets(draft, [config])
    expect(problems.map((p) => p.key).sort()).toEqual([
      'forward.targets.hook.headers.Authorization',
      'forward.targets.hook.url',
    ])
    expect(JSON.stringify(targets)).not.toContain(token)
    expect(JSON.stringify(targets)).not.toContain(apikey)
  })

  it('names an ad-hoc target without userinfo, query or fragment; the logger learns every value', () => {
    expect(urlWithoutCredentials('http://user:pw@host:8080/h?token=T#x')).toBe('http://host:8080/h')
    expect(configSecretValues(config)).toEqual(expect.arrayContaining([...planted, `Bearer ${token}`]))
  })
})
