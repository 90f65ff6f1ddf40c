import { once } from 'node:events'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { useServeProcess, runCli } from '../../support/serve-process'
import type { ServeProcess } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'
import { occupyPort } from '../../support/ports'
import { runMain } from '../../support/cli'

function withoutDbus(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { DBUS_SESSION_BUS_ADDRESS: _bus, DISPLAY: _display, WAYLAND_DISPLAY: _wayland, ...rest } = env
  return rest
}

describe('bin/watchdesk serve', () => {
  const tempDir = useTempDir()
  const serve = useServeProcess()

  describe('one console for these checks (none changes it)', () => {
    const fileDir = useTempDir('watchdesk-test-', { per: 'file' })
    const serveForFile = useServeProcess({ per: 'file' })
    let dir = ''
    let running: ServeProcess
    beforeAll(async () => {
      dir = fileDir()
      running = await serveForFile(['--data-dir', dir])
    })

    it('prints the launch URL and answers /api/health with 401, or 200 with the token', async () => {
      expect(running.token).toBe('serve-process-token')
      expect((await fetch(`${running.consoleUrl}/api/health`)).status).toBe(401)
      const ok = await fetch(`${running.consoleUrl}/api/health`, {
        headers: { authorization: `Bearer ${running.token}` },
      })
      expect(ok.status).toBe(200)
    })

    it('loads better-sqlite3 and keytar from the built bundle under Node', async () => {
      const answer = await fetch(`${running.consoleUrl}/api/call/settings.get`, {
        method: 'POST',
        headers: { authorization: `Bearer ${running.token}` },
      })
      const settings = (await answer.json()) as any
      expect(settings.value.keychain).toMatchObject({ reachable: true, backend: 'keychain' })
    })

    it('refuses a second console on the same data dir, naming the first, and leaves the first unharmed', async () => {
      const held = ['runtime.json', 'watchdesk.lock'].map((f) => readFileSync(join(dir, f), 'utf8'))
      const second = await runCli(['serve', '--data-dir', dir, '--port', '0', '--listener-port', '0'])
      expect(second.code).toBe(3)
      expect(second.stderr).toMatch(
        new RegExp(
          `Another watchdesk \\(the console running as pid ${running.process.pid}\\) is already running`,
        ),
      )
      expect(second.stdout).toBe('')
      // The first keeps its runtime.json and its lock, its console and its listener.
      expect(['runtime.json', 'watchdesk.lock'].map((f) => readFileSync(join(dir, f), 'utf8'))).toEqual(held)
      expect(running.process.exitCode).toBeNull()
      const health = await fetch(`${running.consoleUrl}/api/health`, {
        headers: { authorization: `Bearer ${running.token}` },
      })
      expect(health.status).toBe(200)
      const unsigned = await fetch(`${running.listenerUrl}/webhooks`, { method: 'POST', body: '{}' })
      expect(unsigned.status).toBe(401)
    })

    it('says the port is taken rather than crashing', async () => {
      const port = new URL(running.consoleUrl).port
      const second = await runCli(['serve', '--data-dir', tempDir(), '--port', port, '--listener-port', '0'])
      expect(second.code).toBe(3)
      expect(second.stderr).toMatch(new RegExp(`Port ${port} .* already in use.*--port`))
    })
  })

  it('serves the console while the listener port is taken: the API answers, the listener problem is reported, nothing is stored', async () => {
    const squatter = await occupyPort()
    const { port } = squatter
    try {
      const running = await serve(['--data-dir', tempDir(), '--listener-port', String(port)])
      const call = async (method: string, body: unknown = {}) => {
        const answer = await fetch(`${running.consoleUrl}/api/call/${method}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${running.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
        return (await answer.json()) as any
      }
      const cause = `Port ${port} on 127.0.0.1 is in use (another watchdesk?).`
      expect(running.listenerUrl).toBeNull()
      while (!running.output().includes('webhooks: not listening'))
        await once(running.process.stderr!, 'data')
      expect(running.output()).toContain(`webhooks: not listening`)
      expect(running.output()).toContain(`${cause} Stop it, or set listener.port / --listener-port`)

      const status = await call('events.listener')
      expect(status.value).toMatchObject({ listening: false, url: null })
      expect(status.value.problem).toContain(cause)
      expect((await call('events.list')).value).toEqual({ rows: [], next: null })
      expect((await call('chains.list')).ok).toBe(true)
      const listenerCheck = (await call('app.firstRun')).value.checks.find((c: any) => c.id === 'listener')
      expect(listenerCheck).toMatchObject({ state: 'missing' })
      expect(listenerCheck.detail).toContain(cause)
      expect((await call('settings.get')).value).toMatchObject({ listenerUrl: null })

      const sent = await call('events.sendTest', { type: 'funding.completed' })
      expect(sent.ok).toBe(false)
      expect(sent.error.message).toMatch(/webhook listener is not running/)
      expect((await call('events.count')).value.total).toBe(0)
    } finally {
      squatter.close()
    }
  })

  it('explains an unreachable keychain with the cause and the fix', async () => {
    const running = await serve(['--data-dir', tempDir()], withoutDbus(process.env))
    const answer = await fetch(`${running.consoleUrl}/api/call/settings.get`, {
      method: 'POST',
      headers: { authorization: `Bearer ${running.token}` },
    })
    const { keychain } = ((await answer.json()) as any).value
    expect(keychain.reachable).toBe(false)
    expect(keychain.message).toMatch(/keychain is not reachable \(.+\)/)
    expect(keychain.message).toMatch(/Secret Service on D-Bus/)
    expect(keychain.message).toMatch(/WATCHDESK_API_KEY/)
  })

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'releases its data-dir lock when stopped with %s',
    async (signal) => {
      const dir = tempDir()
      const running = await serve(['--data-dir', dir])
      expect(existsSync(join(dir, 'watchdesk.lock'))).toBe(true)
      running.process.kill(signal)
      const [code] = await once(running.process, 'exit')
      expect(code).toBe(0)
      expect(existsSync(join(dir, 'watchdesk.lock'))).toBe(false)
    },
  )

  // Usage errors are the parser's: answered in this process (runMain, the same parsing and exit
  // codes as the binary), without a Node start each.
  it('rejects a bad flag with a sentence and exit status 2 (usage)', async () => {
    const result = await runMain(['serve', '--port', 'seventy'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/--port takes a whole number/)
  })

  it('refuses --listener-port 70000 with one sentence and exit status 2, before starting anything', async () => {
    const dir = tempDir()
    const result = await runCli(['serve', '--data-dir', dir, '--port', '0', '--listener-port', '70000'])
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'watchdesk serve: --listener-port takes a port number from 0 to 65535, not 70000.\n',
    })
    expect(existsSync(join(dir, 'watchdesk.lock'))).toBe(false)
  })

  it('names an unknown command and lists the commands', async () => {
    const result = await runMain(['frobnicate'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/unknown command 'frobnicate'/)
    expect(result.stderr).toMatch(/Usage: watchdesk \[options\] \[command\][\s\S]*\n {2}serve /)
  })
})
