import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useRelayProcesses } from '../../support/relay-process'
import { repoRoot, runCli, useServeProcess } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { relaySecret } from './helpers'

/** Issue 29 item 5: one writer per SQLite store. A relay takes the lock of its database file —
 * the lock a console or `listen` holds in its data dir — and names the owner when it is held.
 * Real processes: `bin/watchdesk serve` and `bin/watchdesk relay` from the built bundle. */

const env = { ...process.env, WATCHDESK_WEBHOOK_SECRETS: relaySecret, WATCHDESK_LOG_LEVEL: 'warn' }

/** The relay's exit code and everything it printed, once it has exited. */
async function exitOf(spawned: ReturnType<ReturnType<typeof useRelayProcesses>>) {
  spawned.ready.catch(() => {})
  const code = await waitFor(() => spawned.child.exitCode ?? undefined, 'the relay to exit', {
    timeoutMs: 20_000,
  })
  return { code, output: spawned.output() }
}

describe('one writer per SQLite store', () => {
  const tempDir = useTempDir()
  const serve = useServeProcess()
  const relay = useRelayProcesses()

  it('a relay pointed at a running console database refuses to start and names the console', async () => {
    expect(existsSync(join(repoRoot, 'out/main/cli.js')), 'the built bundle (npm run build)').toBe(true)
    const dir = tempDir()
    const console = await serve(['--data-dir', dir], env)
    const refused = await exitOf(relay(`sqlite:${join(dir, 'watchdesk.db')}`, env))
    expect(refused.code).toBe(3)
    expect(refused.output).toContain(
      `${join(dir, 'watchdesk.db')}: this database belongs to the console running as pid ${console.process.pid}; give the relay its own --data-dir`,
    )
    // The console still runs and still holds its lock.
    expect(console.process.exitCode).toBeNull()
    expect(existsSync(join(dir, 'watchdesk.lock'))).toBe(true)
  }, 60_000)

  it('a second relay on the same SQLite file refuses, naming the first; the console refuses a relay data dir too', async () => {
    const dir = tempDir()
    const store = `sqlite:${join(dir, 'watchdesk.db')}`
    const first = await relay(store, env).ready
    const second = await exitOf(relay(store, env))
    expect(second.code).toBe(3)
    expect(second.output).toContain(
      `this database belongs to the relay running as pid ${first.child.pid}; give the relay its own --data-dir`,
    )
    // A file with another name has its own lock beside it.
    const other = `sqlite:${join(dir, 'events.db')}`
    const firstOther = await relay(other, env).ready
    expect(existsSync(join(dir, 'events.db.lock'))).toBe(true)
    const secondOther = await exitOf(relay(other, env))
    expect(secondOther.code).toBe(3)
    expect(secondOther.output).toContain(`belongs to the relay running as pid ${firstOther.child.pid}`)
    // A console started on the relay's data dir is refused with the relay named.
    const consoleRun = await runCli(['serve', '--data-dir', dir, '--port', '0', '--listener-port', '0'], env)
    expect(consoleRun.code).toBe(3)
    expect(consoleRun.stderr).toContain(
      `the relay running as pid ${first.child.pid} uses the data dir ${dir}`,
    )
  }, 90_000)

  it('without --data-dir or WATCHDESK_DATA_DIR the relay keeps its store in the relay folder of the default data dir', async () => {
    const home = tempDir()
    const own: NodeJS.ProcessEnv = { ...env, XDG_DATA_HOME: home, HOME: home }
    delete own.WATCHDESK_DATA_DIR
    const console = await serve([], own)
    const started = relay('', own)
    const ready = await started.ready
    expect(ready.output()).toContain(
      `watchdesk relay on sqlite:${join(home, 'watchdesk', 'relay', 'watchdesk.db')}`,
    )
    expect(existsSync(join(home, 'watchdesk', 'relay', 'watchdesk.lock'))).toBe(true)
    expect(console.process.exitCode).toBeNull()
  }, 60_000)
})
