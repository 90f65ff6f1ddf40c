import { describe, expect, it } from 'vitest'
import { callApi, useTestConsole } from '../../support/console'
import { useTestKeychain } from '../../support/keychain'
import { useTempDir } from '../../support/temp'

describe('Settings → Doctor (app.doctor)', () => {
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  const keychain = useTestKeychain()

  it("runs the CLI's checks in the console: its own ports are no conflict, the keychain is the console's", async () => {
    const running = await startConsole({ dataDir: tempDir(), secrets: keychain() })
    const answer = await callApi(running, 'app.doctor')
    expect(answer.status).toBe(200)
    const checks = answer.json.value.checks as {
      area: string
      label: string
      state: string
      detail: string
    }[]
    const byLabel = Object.fromEntries(checks.map((c) => [c.label, c]))
    expect(byLabel['Keychain']).toMatchObject({ state: 'ok' })
    expect(byLabel['Console port']).toMatchObject({ state: 'ok' })
    expect(byLabel['Console port']!.detail).toContain('this console listens on it')
    expect(byLabel['Listener port']!.detail).toContain('this console listens on it')
    // A fresh install: nothing failed, the unset parts are warnings with their fix.
    expect(answer.json.value.ok).toBe(true)
    expect(byLabel['Payments API']).toMatchObject({ state: 'warn' })
    expect(byLabel['Node access']).toMatchObject({ state: 'warn' })
  })
})
