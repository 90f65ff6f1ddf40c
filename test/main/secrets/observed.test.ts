import { describe, expect, it } from 'vitest'
import { observeSecrets } from '../../../src/main/secrets/observed'
import type { SecretStore } from '../../../src/main/secrets/store'
import { createLogger } from '../../../src/main/log'
import { ok } from '../../../src/shared/result'

describe('observed secrets', () => {
  it('resolves set() with the stored result although a change listener throws, and logs the throw', async () => {
    const stored = new Map<string, string>()
    const store = {
      get: async (account: string) => ok(stored.get(account) ?? null),
      set: async (account: string, secret: string) => {
        stored.set(account, secret)
        return ok(undefined)
      },
      delete: async (account: string) => ok(stored.delete(account)),
    } as unknown as SecretStore
    const lines: string[] = []
    const observed = observeSecrets(
      store,
      createLogger((l) => lines.push(l), 'debug'),
    )
    observed.onChange(() => {
      throw new Error('subscriber bug')
    })
    const heard: string[] = []
    observed.onChange((account) => heard.push(account))
    await expect(observed.set('api-key:main', 'sk_sandbox_x')).resolves.toMatchObject({ ok: true })
    expect(stored.get('api-key:main')).toBe('sk_sandbox_x')
    expect(heard).toEqual(['api-key:main'])
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({ level: 'error', account: 'api-key:main' }),
    ])
    expect(lines.join('')).not.toContain('sk_sandbox_x')
  })
})
