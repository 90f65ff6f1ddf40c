import { execFileSync, spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { chainRegistry } from '../../../src/shared/chains/registry'
import { occupyPort } from '../../support/ports'
import { useRpcStandin } from '../../support/rpc-standin'
import { runMain } from '../../support/cli'
import { cliPath, runCli } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'

/** Runs the CLI on a pseudo-terminal (util-linux `script`), as an operator at a terminal does. */
function onTerminal(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  const quoted = [process.execPath, cliPath, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', quoted, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (c) => (output += c))
    child.stderr.on('data', (c) => (output += c))
    child.on('close', (code) => resolve({ code: code ?? -1, output: output.replace(/\r/g, '') }))
  })
}

async function closedPort(): Promise<number> {
  const held = await occupyPort()
  held.close()
  return held.port
}

const jsonLogLine = /^\{"t":"[^"]+","level":/m

/** An old `node` (the system's on Debian 12) to start bin/watchdesk with, if there is one. */
function oldNode(): string | null {
  for (const file of ['/usr/bin/node', '/usr/local/bin/node']) {
    try {
      const version = execFileSync(file, ['-p', 'process.versions.node'], { encoding: 'utf8' })
      if (Number(version.split('.')[0]) < 22) return file
    } catch {
      // not installed there
    }
  }
  return null
}

describe('the first hour at a terminal', () => {
  const tempDir = useTempDir()
  const rpc = useRpcStandin()
  const children: ChildProcess[] = []
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGTERM')
  })

  it('a failing call on a terminal prints its sentence and no JSON log line (piped, the log lines are JSON)', async () => {
    const dataDir = join(tempDir(), 'data')
    const port = await closedPort()
    expect(
      (await runMain(['config', 'set', 'apiBaseUrl', `http://127.0.0.1:${port}`, '--data-dir', dataDir]))
        .code,
    ).toBe(0)
    const env = { ...process.env, WATCHDESK_API_KEY: 'sk_sandbox_firsthour_0a1b2c3d' }
    const tty = await onTerminal(['wallets', '--data-dir', dataDir], env)
    expect(tty.code).toBe(3)
    expect(tty.output).toContain('watchdesk wallets: Could not reach the payments API')
    expect(tty.output).not.toMatch(jsonLogLine)
    // Each warning once, as a short line.
    expect(tty.output.match(/^watchdesk: warning: /gm) ?? []).toHaveLength(1)
    const piped = await runCli(['wallets', '--data-dir', dataDir], env)
    expect(piped.stderr).toMatch(jsonLogLine)
    const verbose = await onTerminal(['wallets', '--verbose', '--data-dir', dataDir], env)
    expect(verbose.output).not.toMatch(jsonLogLine)
    expect(verbose.output).toMatch(/ warn payments call will be retried .*attempt=1/)
    const machine = await onTerminal(['wallets', '--log-format', 'json', '--data-dir', dataDir], env)
    expect(machine.output).toMatch(jsonLogLine)
  })

  it('serve on a terminal prints its URLs first, before any log line', async () => {
    const dataDir = join(tempDir(), 'data')
    const env = { ...process.env, WATCHDESK_TOKEN: 'first-hour-token' }
    const quoted = `'${process.execPath}' '${cliPath}' serve --port 0 --listener-port 0 --data-dir '${dataDir}' --verbose`
    const child = spawn('script', ['-qec', quoted, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    children.push(child)
    let output = ''
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (c) => {
        // A terminal ends lines with \r\n.
        output += String(c).replace(/\r/g, '')
        if (/webhooks: .*\n/.test(output) && / info /.test(output)) resolve()
      })
      child.once('exit', () => reject(new Error(`serve exited:\n${output}`)))
    })
    const lines = output.split('\n')
    expect(lines[0]).toMatch(/^watchdesk \S+ serving /)
    expect(lines[1]).toMatch(/^console: +http:\/\/127\.0\.0\.1:\d+\/\?token=/)
    expect(lines.findIndex((l) => / info /.test(l))).toBeGreaterThan(1)
    expect(output).not.toMatch(jsonLogLine)
  })

  it('a mistyped event type is refused with the close one; --force sends it anyway', async () => {
    const dataDir = join(tempDir(), 'data')
    const typo = await runMain(['send-test-event', 'funding.complete', '--data-dir', dataDir])
    expect(typo.code).toBe(2)
    expect(typo.stderr).toContain(
      '"funding.complete" is not a known event type. Did you mean funding.completed?',
    )
    const forced = await runMain(['send-test-event', 'funding.complete', '--force', '--data-dir', dataDir], {
      ...process.env,
      WATCHDESK_WEBHOOK_SECRETS: 'whsec_firsthour_secret_0123456789',
    })
    expect(forced.stderr).not.toContain('not a known event type')
    const events = await runMain(['events', '--type', 'payout.faild', '--data-dir', dataDir])
    expect(events.stderr).toContain('Did you mean payout.failed?')
  })

  it('-v points at -V/--version; events --help names its default once', async () => {
    const v = await runMain(['-v'])
    expect(v.code).toBe(2)
    expect(v.stderr).toMatch(/unknown option '-v'\n\(Did you mean -V or --version\?\)/)
    const help = await runMain(['events', '--help'])
    expect(help.stdout).toMatch(/--limit <n> +at most this many \(default: 50\)\n/)
    expect(help.stdout).not.toContain('(default 50)')
  })

  it('config set before the data dir exists creates it (0700) and saves', async () => {
    const dataDir = join(tempDir(), 'new', 'data')
    const set = await runMain(['config', 'set', 'pollIntervalMs', '5000', '--data-dir', dataDir])
    expect(set.stderr).toBe('')
    expect(set.code).toBe(0)
    expect(statSync(dataDir).mode & 0o777).toBe(0o700)
    expect(JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8'))).toEqual({ pollIntervalMs: 5000 })
  })

  it('a node path answering 404 suggests chains.<id>.slug', async () => {
    const dir = tempDir()
    const node = await rpc(() => ({ status: 404, body: 'no such chain' }))
    const chains = Object.fromEntries(
      chainRegistry.map((c) => [String(c.serviceId), { enabled: c.serviceId === 137 }]),
    )
    mkdirSync(join(dir, 'data'), { mode: 0o700 })
    writeFileSync(join(dir, 'data', 'config.json'), JSON.stringify({ rpcBaseUrl: node.url, chains }))
    const run = await runMain(['chains', '--json', '--data-dir', join(dir, 'data')], {
      ...process.env,
      WATCHDESK_PROJECT_UID: 'puid-firsthour-77',
    })
    const polygon = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((c) => c.serviceId === 137)
    expect(polygon.status).toBe('down')
    expect(polygon.reason).toContain('HTTP 404')
    expect(polygon.reason).toContain('set chains.137.slug')
  })

  it("sources add at a relay's listener port names the sync port and stores nothing; sources list says each state", async () => {
    const dir = tempDir()
    const dataDir = join(dir, 'data')
    const store = `sqlite:${join(dir, 'relay.db')}`
    const env = { ...process.env, WATCHDESK_WEBHOOK_SECRETS: 'whsec_firsthour_relay_0123456789' }
    const token = await runMain(['relay', 'token', 'create', 'laptop', '--store', store], env)
    expect(token.code).toBe(0)
    const relay = spawn(
      process.execPath,
      [cliPath, 'relay', '--store', store, '--listener-port', '0', '--port', '0'],
      {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    children.push(relay)
    let out = ''
    const urls = await new Promise<{ webhooks: string; sync: string }>((resolve, reject) => {
      relay.stdout.on('data', (c) => {
        out += c
        const webhooks = /webhooks: (http:\/\/\S+)\/webhooks/.exec(out)?.[1]
        const sync = /sync: +(http:\/\/\S+)\/sync\//.exec(out)?.[1]
        if (webhooks && sync) resolve({ webhooks, sync })
      })
      relay.once('exit', () => reject(new Error(`relay exited:\n${out}`)))
    })
    const name = `office${process.pid}`
    const wrong = await runCli(
      ['sources', 'add', name, urls.webhooks, '--data-dir', dataDir],
      env,
      token.stdout.trim(),
    )
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain("is the relay's webhook listener port")
    expect(wrong.stderr).toContain('the sync API is --port (7422)')
    // A token the relay refuses is not kept: no source, no keychain entry, nothing to page for.
    const refused = await runCli(
      ['sources', 'add', name, urls.sync, '--data-dir', dataDir],
      env,
      'wdr_not_a_token_of_this_relay_0123',
    )
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/refused the token .*nothing was stored/)
    const none = await runMain(['sources', 'list', '--json', '--data-dir', dataDir], env)
    expect(none.stdout).toBe('')
    try {
      const right = await runCli(
        ['sources', 'add', name, urls.sync, '--data-dir', dataDir],
        env,
        token.stdout.trim(),
      )
      expect(right.code).toBe(0)
      const gone = `gone${process.pid}`
      const closed = await runCli(
        ['sources', 'add', gone, `http://127.0.0.1:${await closedPort()}`, '--data-dir', dataDir],
        env,
        token.stdout.trim(),
      )
      expect(closed.code).toBe(1)
      const list = await runMain(['sources', 'list', '--data-dir', dataDir], env)
      expect(list.stdout).toMatch(/^name +state +url/)
      expect(list.stdout).toMatch(new RegExp(`^${name} +reachable +http`, 'm'))
      expect(list.stdout).toMatch(new RegExp(`^${gone} +unreachable +http`, 'm'))
      // Asked from this console's cursor (none yet): the relay holds nothing, so nothing to sync.
      expect(list.stdout).toMatch(/^name +state +url +token +cursor +behind$/m)
      expect(list.stdout).toMatch(new RegExp(`^${name} +reachable .* +not synced yet +up to date$`, 'm'))
      expect(list.stdout).toMatch(new RegExp(`^${gone} +unreachable .* +not synced yet +—$`, 'm'))
      // The doctor asks the same relays.
      const doctor = await runMain(
        ['doctor', '--json', '--data-dir', dataDir, '--port', String(await closedPort())],
        env,
      )
      const relays = doctor.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((l) => l.area === 'sources')
      expect(Object.fromEntries(relays.map((l) => [l.label, l.state]))).toEqual({
        [`Relay ${name}`]: 'ok',
        [`Relay ${gone}`]: 'fail',
      })
      await runMain(['sources', 'remove', gone, '--data-dir', dataDir], env)
    } finally {
      await runMain(['sources', 'remove', name, '--data-dir', dataDir], env)
    }
    // A dozen CLI processes and a relay: more than the default 30 s on a loaded machine.
  }, 120_000)

  it.skipIf(oldNode() === null)(
    'bin/watchdesk started by an older node runs with the Node 22 installed under the home folder and says how to keep it',
    async () => {
      const home = tempDir()
      const run = (env: NodeJS.ProcessEnv) =>
        new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
          const child = spawn(oldNode()!, [cliPath, '--version'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
          let stdout = ''
          let stderr = ''
          child.stdout.on('data', (c) => (stdout += c))
          child.stderr.on('data', (c) => (stderr += c))
          child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }))
        })
      const without = await run({ ...process.env, HOME: home })
      expect(without.code).toBe(3)
      expect(without.stderr).toContain('npm i -g --prefix ~/.local/node22 node@22')
      mkdirSync(join(home, '.local', 'node22', 'bin'), { recursive: true })
      symlinkSync(process.execPath, join(home, '.local', 'node22', 'bin', 'node'))
      const found = await run({ ...process.env, HOME: home })
      expect(found.code).toBe(0)
      expect(found.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/)
      expect(found.stderr).toContain('export PATH=$HOME/.local/node22/bin:$PATH')
    },
  )
})
