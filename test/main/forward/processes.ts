import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { afterEach } from 'vitest'
import { cliPath } from '../../support/serve-process'

export interface ListenProcess {
  process: ChildProcess
  webhookUrl: string
  stdout(): string
  stderr(): string
  exited: Promise<number | null>
}

/** `bin/watchdesk listen …` (the built bundle) on a free listener port; killed after each test. */
export function useListenProcess(): (args: string[], env: NodeJS.ProcessEnv) => Promise<ListenProcess> {
  const started: ChildProcess[] = []
  afterEach(() => {
    for (const child of started.splice(0))
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  return (args, env) => {
    const child = spawn(process.execPath, [cliPath, 'listen', '--listener-port', '0', ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    started.push(child)
    let out = ''
    let err = ''
    child.stdout.on('data', (c) => (out += c))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    return new Promise((resolve, reject) => {
      child.stderr.on('data', (c) => {
        err += c
        const m = /listening: (http:\/\/\S+\/webhooks)/.exec(err)
        if (m) resolve({ process: child, webhookUrl: m[1]!, stdout: () => out, stderr: () => err, exited })
      })
      void exited.then((code) => reject(new Error(`listen exited with ${code} before it was ready:\n${err}`)))
    })
  }
}
