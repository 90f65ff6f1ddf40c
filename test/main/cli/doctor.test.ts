import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { chainRegistry } from '../../../src/shared/chains/registry'
import { useAnvil } from '../../support/anvil'
import { allScopes, sandboxLimits, usePaymentsStandin } from '../../support/payments-standin'
import { occupyPort } from '../../support/ports'
import { useTestConsole } from '../../support/console'
import { runMain } from '../../support/cli'
import { cliPath, runCli } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'

interface Line {
  area: string
  label: string
  state: 'ok' | 'warn' | 'fail'
  detail: string
  fix: string | null
  blockedBy: string | null
}
const linesOf = (stdout: string): Line[] =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line)
const area = (lines: Line[], name: string) => lines.find((l) => l.area === name)!

/** The environment of a shell without a desktop session: no session bus, no display. */
function headless(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra }
  delete env.DBUS_SESSION_BUS_ADDRESS
  delete env.DISPLAY
  delete env.WATCHDESK_KEYRING_READY
  return env
}

async function freePort(): Promise<number> {
  const held = await occupyPort()
  held.close()
  return held.port
}

function bash(script: string, env: NodeJS.ProcessEnv, input: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('bash', ['-c', script], { env, stdio: 'pipe' })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => (stdout += c))
    child.stderr.on('data', (c) => (stderr += c))
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }))
    child.stdin.end(input)
  })
}

describe('watchdesk doctor', () => {
  const tempDir = useTempDir()
  const standin = usePaymentsStandin()
  const anvil = useAnvil()
  const startConsole = useTestConsole()

  it('without a D-Bus session: exit 1, the keychain line with the lines that start one, and what it blocks', async () => {
    const dir = tempDir()
    const run = await runCli(
      ['doctor', '--data-dir', join(dir, 'data'), '--port', String(await freePort())],
      headless(),
    )
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/^FAIL {2}Keychain .*DBUS_SESSION_BUS_ADDRESS is unset/m)
    expect(run.stdout).toContain(
      'export DBUS_SESSION_BUS_ADDRESS=$(dbus-daemon --session --fork --print-address)',
    )
    expect(run.stdout).toContain('gnome-keyring-daemon --replace --unlock --components=secrets')
    // Node access needs the project uid from the keychain: blocked, said once, no second paragraph.
    expect(run.stdout).toMatch(/^FAIL {2}Node access +blocked by: keychain$/m)
    expect(run.stdout.match(/Secret Service/g)).toHaveLength(1)
    // No JSON log line in human output.
    expect(run.stdout + run.stderr).not.toMatch(/^\{"t":/m)
  })

  it('the lines it prints start a keychain in a shell without one: the doctor then finds it reachable', async () => {
    const dir = tempDir()
    const env = headless({ XDG_DATA_HOME: join(dir, 'keyrings') })
    const first = await runCli(['doctor', '--json', '--data-dir', join(dir, 'data')], env)
    const fix = area(linesOf(first.stdout), 'keychain').fix!
    const lines = fix.split('\n').filter((l) => /^(export |read )/.test(l))
    expect(lines).toHaveLength(2)
    // The printed lines, then the doctor in that shell; then the bus (and the keyring with it) is
    // stopped by the pid the bus itself reports, so nothing started here outlives the test.
    const pidOf = (name: string) =>
      `dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.GetConnectionUnixProcessID string:${name} | awk '/uint32/{print $2}'`
    // After the bus alone, a keyring starts on demand but stores nothing (no unlocked login
    // keyring): the doctor says so; after the unlock line it stores.
    const doctor = (file: string) =>
      `"${process.execPath}" "${cliPath}" doctor --json --data-dir "${join(dir, 'data')}" > "${join(dir, file)}" || true`
    const script = [
      'set -e',
      lines[0],
      doctor('bus-only.jsonl'),
      lines[1],
      doctor('unlocked.jsonl'),
      `keyring=$(${pidOf('org.freedesktop.secrets')}); bus=$(${pidOf('org.freedesktop.DBus')})`,
      'kill $keyring $bus',
    ].join('\n')
    const run = await bash(script, env, 'doctor-test-password\n')
    expect(run.code, run.stderr).toBe(0)
    const busOnly = area(linesOf(readFileSync(join(dir, 'bus-only.jsonl'), 'utf8')), 'keychain')
    expect(busOnly.state).toBe('fail')
    expect(busOnly.detail).toContain('nothing can be stored')
    expect(busOnly.fix).toContain('gnome-keyring-daemon --replace --unlock')
    const unlocked = area(linesOf(readFileSync(join(dir, 'unlocked.jsonl'), 'utf8')), 'keychain')
    expect(unlocked).toMatchObject({ state: 'ok', blockedBy: null })
    expect(unlocked.detail).toContain('a secret can be stored and removed')
  })

  it('on a configured machine (payments stand-in, anvil node, free ports): every line ok, exit 0', async () => {
    const dir = tempDir()
    const dataDir = join(dir, 'data')
    const key = 'sk_sandbox_doctor_5f4e3d2c1b0a'
    const s = await standin({ keys: { [key]: { scopes: allScopes, limits: sandboxLimits, businesses: [] } } })
    const node = await anvil({ chainId: 137 })
    const chains = Object.fromEntries(
      chainRegistry.map((c) => [
        String(c.serviceId),
        c.serviceId === 137 ? { url: node.url } : { enabled: false },
      ]),
    )
    mkdirSync(dataDir, { mode: 0o700 })
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({
        apiBaseUrl: s.url,
        rpcBaseUrl: node.url,
        chains,
        listener: { port: await freePort() },
      }),
      { mode: 0o600 },
    )
    const env = { ...process.env, WATCHDESK_API_KEY: key, WATCHDESK_PROJECT_UID: 'puid-doctor-0042' }
    const run = await runMain(
      ['doctor', '--json', '--data-dir', dataDir, '--port', String(await freePort())],
      env,
    )
    const lines = linesOf(run.stdout)
    expect(lines.filter((l) => l.state === 'fail')).toEqual([])
    expect(run.code).toBe(0)
    for (const name of ['keychain', 'data-dir', 'config', 'payments', 'scopes', 'node-access'])
      expect(area(lines, name), name).toMatchObject({ state: 'ok' })
    expect(area(lines, 'scopes').detail).toContain('wallets: yes (wallets:read)')
    expect(area(lines, 'scopes').detail).toContain('webhook endpoints (list): yes (webhooks:read)')
    expect(run.stdout).not.toContain(key)
  })

  it('opens each --store: a relay SQLite store is ok, an unreachable PostgreSQL fails without its password', async () => {
    const dir = tempDir()
    const sqlite = `sqlite:${join(dir, 'relay.db')}`
    expect((await runMain(['relay', 'token', 'create', 'doc', '--store', sqlite])).code).toBe(0)
    const postgres = `postgres://relay:pg-secret-pass@127.0.0.1:${await freePort()}/watchdesk`
    const run = await runMain([
      'doctor',
      '--json',
      '--data-dir',
      join(dir, 'data'),
      '--store',
      sqlite,
      '--store',
      postgres,
    ])
    const stores = linesOf(run.stdout).filter((l) => l.area === 'store')
    expect(stores.map((l) => l.state)).toEqual(['ok', 'fail'])
    expect(stores[0]!.detail).toContain(sqlite)
    expect(stores[1]!.detail).toContain('127.0.0.1')
    expect(run.stdout).not.toContain('pg-secret-pass')
    expect(run.code).toBe(1)
  })

  it('follows the public URL: a watchdesk listener is ok, another receiver a warning, nothing a failure', async () => {
    const c = await startConsole({ dataDir: tempDir() })
    const other = createServer((_req, res) => res.end('hello'))
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()))
    try {
      const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/webhooks`
      const states: string[] = []
      for (const publicUrl of [
        `${c.backend.services.webhooks.address().url}/webhooks`,
        otherUrl,
        `http://127.0.0.1:${await freePort()}/webhooks`,
      ]) {
        const dataDir = join(tempDir(), 'data')
        mkdirSync(dataDir, { mode: 0o700 })
        writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ listener: { publicUrl } }), {
          mode: 0o600,
        })
        const run = await runMain([
          'doctor',
          '--json',
          '--data-dir',
          dataDir,
          '--port',
          String(await freePort()),
        ])
        states.push(area(linesOf(run.stdout), 'public-url').state)
      }
      expect(states).toEqual(['ok', 'warn', 'fail'])
    } finally {
      other.close()
    }
  })

  it('names the scope a key lacks for each feature, and a listener port another program holds', async () => {
    const dir = tempDir()
    const dataDir = join(dir, 'data')
    const key = 'sk_sandbox_doctor_walletsonly_77'
    const s = await standin({
      keys: { [key]: { scopes: ['wallets:read'], limits: sandboxLimits, businesses: [] } },
    })
    const squatter = await occupyPort()
    try {
      mkdirSync(dataDir, { mode: 0o700 })
      writeFileSync(
        join(dataDir, 'config.json'),
        JSON.stringify({ apiBaseUrl: s.url, listener: { port: squatter.port } }),
        { mode: 0o600 },
      )
      const env = { ...process.env, WATCHDESK_API_KEY: key }
      const run = await runMain(
        ['doctor', '--json', '--data-dir', dataDir, '--port', String(await freePort())],
        env,
      )
      const lines = linesOf(run.stdout)
      expect(run.code).toBe(1)
      expect(area(lines, 'scopes')).toMatchObject({ state: 'warn' })
      expect(area(lines, 'scopes').detail).toContain('webhook endpoints (list): lacks webhooks:read')
      expect(area(lines, 'scopes').fix).toContain('webhooks:read')
      const listener = lines.find((l) => l.label === 'Listener port')!
      expect(listener).toMatchObject({ state: 'fail' })
      expect(listener.fix).toContain(`ss -ltnp 'sport = :${squatter.port}'`)
    } finally {
      squatter.close()
    }
  })
})
