import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, afterEach } from 'vitest'
import { signBody } from '../../src/main/webhooks'

export const repoRoot = join(import.meta.dirname, '..', '..')
export const cliPath = join(repoRoot, 'bin', 'watchdesk')

export interface ServeProcess {
  process: ChildProcess
  consoleUrl: string
  token: string
  /** The webhook listener's base URL when serve printed one. */
  listenerUrl: string | null
  output(): string
}

/** `bin/watchdesk serve` as its own process (the built bundle, as an operator runs it), on free
 * ports; killed after each test, or after the file's tests with `per: 'file'` (one started in
 * `beforeAll` for every test of the file). */
export function useServeProcess({ per = 'test' }: { per?: 'test' | 'file' } = {}): (
  args: string[],
  env?: NodeJS.ProcessEnv,
) => Promise<ServeProcess> {
  const started: ChildProcess[] = []
  ;(per === 'file' ? afterAll : afterEach)(async () => {
    await Promise.all(started.splice(0).map(stopChild))
  })
  return (args, env = process.env) => {
    const child = spawn(
      process.execPath,
      [cliPath, 'serve', '--port', '0', '--listener-port', '0', ...args],
      {
        env: { WATCHDESK_TOKEN: 'serve-process-token', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    started.push(child)
    return waitForConsole(child)
  }
}

export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  input?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => (stdout += c))
    child.stderr.on('data', (c) => (stderr += c))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }))
    child.stdin.end(input ?? '')
  })
}

function waitForConsole(child: ChildProcess): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    let out = ''
    const onData = (chunk: Buffer) => {
      out += chunk.toString()
      const consoleLine = /console:\s+(http:\/\/127\.0\.0\.1:\d+)\/\?token=(\S+)/.exec(out)
      // serve prints the console line, then the listener's ("webhooks: URL" or "webhooks: not
      // listening…"); the two can arrive in separate chunks, so wait for both.
      if (!consoleLine || !/webhooks: .*\n/.test(out)) return
      const listener = /webhooks:\s+(https?:\/\/\S+?)\/webhooks/.exec(out)
      resolve({
        process: child,
        consoleUrl: consoleLine[1]!,
        token: decodeURIComponent(consoleLine[2]!),
        listenerUrl: listener ? listener[1]! : null,
        output: () => out,
      })
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => reject(new Error(`serve exited with ${code} before it was ready:\n${out}`)))
  })
}

function stopChild(child: ChildProcess): Promise<void> {
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

/** Posts one body to a listener's /webhooks signed with `secret` (the signer the listener checks
 * with); resolves with the status, 0 when no answer came within 8 s. */
export async function postSigned(listenerUrl: string, secret: string, body: string): Promise<number> {
  try {
    const answer = await fetch(`${listenerUrl}/webhooks`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-service-signature': signBody(secret, body) },
      signal: AbortSignal.timeout(8_000),
    })
    return answer.status
  } catch {
    return 0
  }
}
