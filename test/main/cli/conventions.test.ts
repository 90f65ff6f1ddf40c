import { spawn } from 'node:child_process'
import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createKeytarStore } from '../../../src/main/secrets'
import { eventParams } from '../../../src/main/webhooks/store'
import { payoutEvents } from './payout-events'
import { inThreadCommitter } from '../../../src/main/webhooks/committer'
import { exportEvents } from '../../../src/main/api/events'
import { callApi } from '../../support/console'
import { allScopes, sandboxLimits, usePaymentsStandin } from '../../support/payments-standin'
import { runMain } from '../../support/cli'
import { cliPath, repoRoot, runCli, useServeProcess } from '../../support/serve-process'
import type { ServeProcess } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'
import { secretA, useWebhookBackend } from '../webhooks/helpers'
import { waitFor } from '../../support/wait'

const packageVersion = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version as string
const liveKey = 'sk_live_conv_9z8y7x6w5v4u'
const sandboxKey = 'sk_sandbox_conv_0a1b2c3d4e'

async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

/** A long-running CLI process (follow, watch), killed after each test if still running. */
function useLongCli() {
  const children: ChildProcessWithoutNullStreams[] = []
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
  })
  return (args: string[], env: NodeJS.ProcessEnv = process.env) => {
    const child = spawn(process.execPath, [cliPath, ...args], { env, stdio: 'pipe' })
    children.push(child)
    const out = { stdout: '', stderr: '' }
    child.stdout.on('data', (c) => (out.stdout += c))
    child.stderr.on('data', (c) => (out.stderr += c))
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    return { child, out, exited }
  }
}

function shell(command: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `set -o pipefail; ${command}`], { stdio: 'pipe' })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => (stdout += c))
    child.stderr.on('data', (c) => (stderr += c))
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }))
  })
}

describe('command line conventions (the built bin/watchdesk)', () => {
  const tempDir = useTempDir()
  const longCli = useLongCli()
  // After-hooks run in reverse: serve stops before its data dir is removed.
  const tempDirForFile = useTempDir('watchdesk-conventions-', { per: 'file' })
  const serveForFile = useServeProcess({ per: 'file' })
  let sharedConsole: Promise<{ running: ServeProcess; dir: string }> | undefined
  /** One serve for the tests that need a running console (none restarts it or needs it fresh);
   * its env has the webhook secret send-test-event signs with. */
  const sharedServe = () =>
    (sharedConsole ??= (async () => {
      const dir = tempDirForFile()
      const env = { ...process.env, WATCHDESK_WEBHOOK_SECRETS: secretA }
      return { dir, running: await serveForFile(['--data-dir', dir], env) }
    })())
  const standin = usePaymentsStandin()
  const backend = useWebhookBackend()

  it('every command and sub-command has --help with an example', async () => {
    // The program's help and two commands' (the lightest module and serve, the heaviest) through
    // the built bin/watchdesk, each loading its own module of the bundle; the rest through the same
    // main() in this process, which prints the same help (every command module of the bundle loads
    // in completion.test.ts, whose scripts the built `completion` prints from the whole tree).
    // 11 processes at once timed the test out at load average 22, and cost 4.3 s of CPU.
    const spawned = new Set(['', 'serve', 'events'])
    const commands = [
      [],
      ['serve'],
      ['events'],
      ['chains'],
      ['wallets'],
      ['webhooks'],
      ['webhooks', 'list'],
      ['webhooks', 'create'],
      ['webhooks', 'delete'],
      ['webhooks', 'cleanup'],
      ['alerts', 'channel'],
      ['alerts', 'channel', 'set'],
      ['alerts', 'channel', 'list'],
      ['alerts', 'channel', 'remove'],
      ['send-test-event'],
      ['keys'],
      ['keys', 'set'],
      ['keys', 'list'],
      ['keys', 'select'],
      ['keys', 'remove'],
      ['project-uid'],
      ['project-uid', 'set'],
      ['config'],
      ['config', 'get'],
      ['config', 'set'],
      ['config', 'unset'],
    ]
    const answers = await Promise.all(
      commands.map((c) =>
        spawned.has(c.join(' ')) ? runCli([...c, '--help']) : runMain([...c, '--help'], {}),
      ),
    )
    expect(answers.filter((_, i) => spawned.has(commands[i]!.join(' ')))).toHaveLength(spawned.size)
    answers.forEach((answer, i) => {
      const name = ['watchdesk', ...commands[i]!].join(' ')
      expect(answer.code, name).toBe(0)
      expect(answer.stdout, name).toContain(`Usage: ${name}`)
      expect(answer.stdout, name).toMatch(/Examples?:\n {2}\$ .*watchdesk/)
    })
  })

  it('--version prints the version', async () => {
    const answer = await runCli(['--version'])
    expect(answer).toMatchObject({ code: 0, stdout: `${packageVersion}\n` })
  })

  it('an unknown command or flag gets "did you mean" and the usage, exit 2', async () => {
    const command = await runCli(['chian'])
    expect(command.code).toBe(2)
    expect(command.stderr).toContain("unknown command 'chian'\n(Did you mean chains?)")
    expect(command.stderr).toContain('Usage: watchdesk [options] [command]')
    const flag = await runCli(['chains', '--jsn'])
    expect(flag.code).toBe(2)
    expect(flag.stderr).toContain("unknown option '--jsn'\n(Did you mean --json?)")
    expect(flag.stderr).toContain('Usage: watchdesk chains [options]')
  })

  it("events --json | head -1 ends quietly, and its JSON is the API export's", async () => {
    const b = await backend()
    // ~0.4 MB of lines, six times a pipe's buffer: head has gone long before the last write.
    await inThreadCommitter(b.context.db).commit(payoutEvents(1000, 'evt_conv').map(eventParams), [])
    const piped = await shell(`node ${cliPath} events --json --limit 1000 --data-dir ${b.dataDir} | head -1`)
    expect(piped.stderr).toBe('')
    expect(piped.code).toBe(0)
    const first = JSON.parse(piped.stdout)
    const exported = exportEvents(b.services.webhooks.store, {}, 'jsonl', 1).text
    expect(first).toEqual(JSON.parse(exported))
    expect(first).toHaveProperty('last_delivery_at')
  })

  it('chains --json | head -1 ends quietly, also while watching', async () => {
    const dir = tempDir()
    const dead = await closedPort()
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ chains: { '250': { url: `http://127.0.0.1:${dead}`, timeoutMs: 500 } } }),
    )
    // One round decides at once; a watch confirms over several polls, as the console does.
    for (const [extra, status] of [
      ['', 'down'],
      ['--watch --interval 250', 'failing'],
    ]) {
      const piped = await shell(`node ${cliPath} chains --json ${extra} --data-dir ${dir} | head -1`)
      expect(piped.stderr, extra).toBe('')
      expect(JSON.parse(piped.stdout), extra).toMatchObject({ serviceId: 250, status })
    }
  })

  it('chains with no chain monitored exits 1 and says why once', async () => {
    const answer = await runMain(['chains', '--data-dir', tempDir()], {
      ...process.env,
      WATCHDESK_PROJECT_UID: '',
    })
    expect(answer.code).toBe(1)
    expect(answer.stdout).toBe('')
    expect(answer.stderr.trim().split('\n')).toEqual([
      'watchdesk chains: no chain is monitored. rpcBaseUrl is not set and no chain has its own url: watchdesk config set rpcBaseUrl https://… then watchdesk project-uid set.',
    ])
  })

  async function paymentsSetup() {
    const s = await standin({
      keys: {
        [liveKey]: { scopes: allScopes, limits: sandboxLimits, businesses: ['biz_a', 'biz_b'] },
        [sandboxKey]: { scopes: allScopes, limits: sandboxLimits, businesses: ['biz_a', 'biz_b'] },
      },
      wallets: {
        biz_a: { wallets: [{ id: 'wal_a', currency: 'USDC', available: '1' }] },
        biz_b: { wallets: [{ id: 'wal_b', currency: 'EUR', available: '2' }] },
      },
    })
    const dir = tempDir()
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        apiBaseUrl: s.url,
        businesses: [{ id: 'biz_a', name: 'A' }],
        selectedBusinessId: 'biz_a',
      }),
    )
    return { s, dir }
  }

  it('--business picks the business on every payments command', async () => {
    const { s, dir } = await paymentsSetup()
    const env = { ...process.env, WATCHDESK_API_KEY: sandboxKey }
    const wallets = await runMain(['wallets', '--business', 'biz_b', '--data-dir', dir], env)
    expect(wallets.code).toBe(0)
    expect(wallets.stdout).toContain('business biz_b · 1 wallet')
    expect((await runMain(['webhooks', 'list', '--business', 'biz_b', '--data-dir', dir], env)).code).toBe(0)
    expect(s.requests.map((r) => r.headers['x-business-id'])).toEqual(['biz_b', 'biz_b'])
  })

  it('a live key marks every output line with LIVE', async () => {
    const { dir } = await paymentsSetup()
    const env = { ...process.env, WATCHDESK_API_KEY: liveKey }
    const wallets = await runMain(['wallets', '--data-dir', dir], env)
    expect(wallets.code).toBe(0)
    const lines = wallets.stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(3)
    for (const line of lines) expect(line).toMatch(/^LIVE {2}/)
    const json = await runMain(['wallets', '--json', '--data-dir', dir], env)
    expect(JSON.parse(json.stdout)).toEqual({ wallets: [{ id: 'wal_a', currency: 'USDC', available: '1' }] })
    expect(json.stderr).toContain('LIVE key in use')
  })

  it('answering "n" to a confirmation prints Cancelled and exits 1', async () => {
    const { s, dir } = await paymentsSetup()
    const env = { ...process.env, WATCHDESK_API_KEY: liveKey }
    const args = ['webhooks', 'create', '--url', 'https://hooks.example.com/x', '--events', 'card.created']
    const answer = await runCli([...args, '--data-dir', dir], env, 'n\n')
    expect(answer.code).toBe(1)
    expect(answer.stderr.trim().split('\n').at(-1)).toBe('Cancelled')
    expect(s.requests.filter((r) => r.method === 'POST')).toHaveLength(0)
  })

  it('events --follow prints new events as JSON lines and ends cleanly on Ctrl-C', async () => {
    const b = await backend()
    await inThreadCommitter(b.context.db).commit(payoutEvents(2, 'evt_old').map(eventParams), [])
    const follow = longCli(['events', '--follow', '--json', '--interval', '50', '--data-dir', b.dataDir])
    // Started: it has read the newest seq (nothing old is printed).
    // A Node start takes seconds of wall time at load average 25: 10 s timed out there.
    await waitFor(() => follow.out.stderr.includes('following new events'), 'the follow to start', {
      timeoutMs: 30_000,
    })
    await inThreadCommitter(b.context.db).commit(payoutEvents(3, 'evt_new').map(eventParams), [])
    await waitFor(() => follow.out.stdout.split('\n').length > 3, 'three new events', { timeoutMs: 30_000 })
    follow.child.kill('SIGINT')
    expect(await follow.exited).toBe(0)
    expect(follow.out.stderr).toBe(
      `following new events in ${join(b.dataDir, 'watchdesk.db')} (Ctrl-C ends)\n`,
    )
    expect(follow.out.stdout.endsWith('\n')).toBe(true)
    const ids = follow.out.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).id)
    expect(ids).toEqual(['evt_new_0', 'evt_new_1', 'evt_new_2'])
  })

  it('chains --watch redraws every interval and ends cleanly on Ctrl-C', async () => {
    const dir = tempDir()
    const dead = await closedPort()
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ chains: { '250': { url: `http://127.0.0.1:${dead}`, timeoutMs: 500 } } }),
    )
    const watch = longCli(['chains', '--watch', '--interval', '250', '--data-dir', dir])
    await waitFor(() => (watch.out.stdout.match(/^watchdesk chains · /gm) ?? []).length >= 2, 'two redraws', {
      // Generous: two redraws took over 10 s once at load 26 (3.5 s alone).
      timeoutMs: 30_000,
    })
    watch.child.kill('SIGINT')
    expect(await watch.exited).toBe(0)
    expect(watch.out.stderr).toBe('')
    expect(watch.out.stdout.endsWith('\n\n')).toBe(true)
  })

  it('send-test-event reaches the running listener at its actual address', async () => {
    const { dir, running } = await sharedServe()
    const env = { ...process.env, WATCHDESK_WEBHOOK_SECRETS: secretA }
    // serve prints its listener line just after the console line.
    const listenerUrl = (
      await waitFor(
        () => /webhooks:\s+(http:\/\/\S+?)\/webhooks/.exec(running.output()),
        'the listener line',
        { timeoutMs: 10_000 },
      )
    )[1]
    // --endpoint: the env secret, whatever other tests keep in the shared test keychain meanwhile.
    const sent = await runMain(
      ['send-test-event', 'funding.completed', '--endpoint', 'env-1', '--json', '--data-dir', dir],
      env,
    )
    expect(sent.stderr).toBe('')
    expect(sent.code).toBe(0)
    expect(JSON.parse(sent.stdout)).toMatchObject({
      status: 200,
      url: `${listenerUrl}/webhooks/env-1`,
    })
  })

  it('config set while serve runs: saved through the writer, applied live by the console', async () => {
    const { dir, running } = await sharedServe()
    const set = await runMain(['config', 'set', 'pollIntervalMs', '4321', '--data-dir', dir])
    expect(set).toMatchObject({ code: 0, stderr: '' })
    const console = { url: running.consoleUrl, token: running.token } as Parameters<typeof callApi>[0]
    await waitFor(
      async () => (await callApi(console, 'settings.get')).json.value.config.pollIntervalMs === 4321,
      'the console to apply the change',
      { timeoutMs: 10_000 },
    )
    expect(await runMain(['config', 'get', 'pollIntervalMs', '--data-dir', dir])).toMatchObject({
      code: 0,
      stdout: '4321\n',
    })
    const bad = await runMain(['config', 'set', 'listener.port', '"x"', '--data-dir', dir])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/listener\.port/)
    const restart = await runMain(['config', 'set', 'listener.host', '127.0.0.2', '--data-dir', dir])
    expect(restart.stdout).toContain('take effect when watchdesk (serve or the app) restarts')
    await waitFor(
      async () =>
        (await callApi(console, 'app.configStatus')).json.value.restartRequired.includes('listener.host'),
      'restart required',
      { timeoutMs: 10_000 },
    )
    expect(await runMain(['config', 'unset', 'pollIntervalMs', '--data-dir', dir])).toMatchObject({ code: 0 })
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({
      listener: { host: '127.0.0.2' },
    })
  })

  it('project-uid set reads stdin into the keychain, never argv', async () => {
    const keychain = createKeytarStore('watchdesk')
    try {
      const refused = await runMain(['project-uid', 'set', 'uid-in-argv', '--data-dir', tempDir()])
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain('not as an argument')
      const stored = await runCli(
        ['project-uid', 'set', '--data-dir', tempDir()],
        process.env,
        'prj_0123456789abcdef\n',
      )
      expect(stored.code).toBe(0)
      expect(stored.stdout).not.toContain('prj_0123456789abcdef')
      expect(await keychain.get('project-uid')).toEqual({ ok: true, value: 'prj_0123456789abcdef' })
    } finally {
      await keychain.delete('project-uid')
    }
  })
})
