import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { delimiter, dirname, join } from 'node:path'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'

/** A local EVM node: anvil from npm (@foundry-rs/anvil), started on a free loopback port. The
 * binary is spawned directly (not through the npm wrapper) so stopping it stops exactly it. */

export interface AnvilOptions {
  chainId: number
  /** Interval mining in seconds (fractions allowed); omitted: a block per transaction. */
  blockTimeSeconds?: number
  binary?: string
  startTimeoutMs?: number
}

export interface AnvilNode {
  chainId: number
  url: string
  port: number
  pid: number
  stop(): Promise<void>
}

const archNames: Record<string, string> = { x64: 'amd64', arm64: 'arm64' }

/** Nodes this process started and has not stopped: killed if the process exits without stopping them. */
const live = new Set<ChildProcess>()
let exitHook = false
function track(child: ChildProcess): void {
  live.add(child)
  child.once('exit', () => live.delete(child))
  if (exitHook) return
  exitHook = true
  process.once('exit', () => {
    for (const c of live) c.kill('SIGKILL')
  })
}

export function anvilBinary(env: NodeJS.ProcessEnv = process.env): Result<string> {
  if (env.WATCHDESK_ANVIL) return ok(env.WATCHDESK_ANVIL)
  const pkg = `@foundry-rs/anvil-${process.platform}-${archNames[process.arch] ?? process.arch}`
  try {
    const require = createRequire(import.meta.url)
    const dir = dirname(require.resolve(`${pkg}/package.json`))
    const file = join(dir, 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil')
    if (existsSync(file)) return ok(file)
  } catch {
    // not installed: fall through to the message below
  }
  const onPath = findOnPath(process.platform === 'win32' ? 'anvil.exe' : 'anvil', env)
  if (onPath) return ok(onPath)
  return err(
    'unavailable',
    `anvil was not found: npm installs it only on Linux x64 (${pkg} is not installed here). ` +
      'Install Foundry (foundryup) so that anvil is on PATH, or set WATCHDESK_ANVIL to an anvil binary.',
  )
}

function findOnPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name)
  }
  return null
}

export async function startAnvil(options: AnvilOptions): Promise<Result<AnvilNode>> {
  const binary = options.binary ? ok(options.binary) : anvilBinary()
  if (!binary.ok) return binary
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--chain-id',
    String(options.chainId),
    '--accounts',
    '2',
  ]
  if (options.blockTimeSeconds !== undefined) args.push('--block-time', String(options.blockTimeSeconds))
  const child = spawn(binary.value, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  track(child)
  const port = await listeningPort(child, options.startTimeoutMs ?? 15_000)
  if (!port.ok) {
    child.kill('SIGKILL')
    return port
  }
  const url = `http://127.0.0.1:${port.value}`
  return ok({
    chainId: options.chainId,
    url,
    port: port.value,
    pid: child.pid!,
    stop: () => stopChild(child),
  })
}

function listeningPort(child: ChildProcess, timeoutMs: number): Promise<Result<number>> {
  return new Promise((resolve) => {
    let output = ''
    const timer = setTimeout(
      () => finish(err('unavailable', `anvil did not start within ${timeoutMs} ms: ${output.slice(-300)}`)),
      timeoutMs,
    )
    const finish = (result: Result<number>) => {
      clearTimeout(timer)
      child.stdout?.removeListener('data', onData)
      child.removeListener('exit', onExit)
      // Keep draining its output so a chatty node never blocks on a full pipe.
      child.stdout?.resume()
      child.stderr?.resume()
      resolve(result)
    }
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Listening on [\d.]+:(\d+)/.exec(output)
      if (match) finish(ok(Number(match[1])))
    }
    const onExit = (code: number | null) =>
      finish(err('unavailable', `anvil exited (code ${code}) before listening: ${output.slice(-300)}`))
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', onExit)
    child.once('error', (error) => finish(err('unavailable', `anvil could not be started: ${error.message}`)))
  })
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 3000)
    child.once('exit', () => {
      clearTimeout(force)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

/** JSON-RPC call to a local node (demo and tests: pausing mining, reading heads). */
export async function anvilRpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await response.json()) as { result?: unknown; error?: { message: string } }
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}
