import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { afterEach } from 'vitest'
import { waitFor } from './wait'

const bin = join(import.meta.dirname, '..', '..', 'bin', 'watchdesk')

export interface RelayProcess {
  child: ChildProcess
  /** The full webhook URL (…/webhooks). */
  webhooks: string
  /** The sync API's base URL (no /sync/). */
  sync: string
  output(): string
}

/** `bin/watchdesk relay` from the built bundle, as an operator runs it, on free ports. Resolves
 * when it printed its URLs; rejects with its output when it exits first. An empty `store` gives
 * no --store (the relay's default). `openFiles` starts it with that limit of open files (soft and
 * hard, through prlimit, which then runs it as the same process): a test of what happens when
 * sockets outnumber the relay's descriptors reaches that point with a few thousand sockets
 * rather than the machine's limit (20,000 here). */
export function spawnRelay(
  store: string,
  env: NodeJS.ProcessEnv,
  { timeoutMs = 20_000, openFiles }: { timeoutMs?: number; openFiles?: number } = {},
): { child: ChildProcess; ready: Promise<RelayProcess>; output(): string } {
  const relayArgs = [
    bin,
    'relay',
    ...(store ? ['--store', store] : []),
    '--listener-port',
    '0',
    '--port',
    '0',
  ]
  const [command, args] =
    openFiles === undefined
      ? [process.execPath, relayArgs]
      : ['prlimit', [`--nofile=${openFiles}:${openFiles}`, '--', process.execPath, ...relayArgs]]
  const child = spawn(command, args, {
    env: { ...process.env, WATCHDESK_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  const output = () => out
  const ready = waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`the relay exited (${child.exitCode}): ${out}`)
      const webhooks = /^webhooks: (\S+)$/m.exec(out)?.[1]
      const sync = /^sync: +(\S+?)\/sync\/$/m.exec(out)?.[1]
      return webhooks && sync ? { child, webhooks, sync, output } : undefined
    },
    'the relay to print its URLs',
    { timeoutMs },
  )
  return { child, ready, output }
}

/** Relay processes a test starts, stopped (SIGTERM, then SIGKILL) after it. */
export function useRelayProcesses(): (
  store: string,
  env: NodeJS.ProcessEnv,
) => ReturnType<typeof spawnRelay> {
  const started: ChildProcess[] = []
  afterEach(async () => {
    await Promise.all(started.splice(0).map(stop))
  })
  return (store, env) => {
    const spawned = spawnRelay(store, env)
    started.push(spawned.child)
    return spawned
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000)
    child.once('exit', () => {
      clearTimeout(force)
      resolve()
    })
    child.kill('SIGTERM')
  })
}
