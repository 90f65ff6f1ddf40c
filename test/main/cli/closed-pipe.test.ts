import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startBackend } from '../../../src/main/backend'
import type { Backend } from '../../../src/main/backend'
import { main } from '../../../src/main/cli/main'
import { terminalSafe } from '../../../src/shared/inert'
import type { CliIo } from '../../../src/main/cli/io'
import { silentLogger, redact } from '../../../src/main/log'
import { createMemoryStore } from '../../../src/main/secrets'
import { inThreadCommitter } from '../../../src/main/webhooks/committer'
import { eventParams } from '../../../src/main/webhooks/store'
import { payoutEvents } from './payout-events'
import { unwrap } from '../../../src/shared/result'
import { cliPath } from '../../support/serve-process'
import { waitFor } from '../../support/wait'

/** `bin/watchdesk ARGS | head -1` in bash: what head printed, the command's own stderr and the
 * exit status of each side (`PIPESTATUS`), read from a line the shell adds after the pipeline. */
function pipedToHead(args: string[], onStarted?: (stderr: string) => void) {
  const quoted = args.map((a) => `'${a}'`).join(' ')
  const script = `"${process.execPath}" "${cliPath}" ${quoted} | head -1; echo "pipestatus \${PIPESTATUS[*]}" >&2`
  const child = spawn('bash', ['-c', script], {
    stdio: 'pipe',
    env: { ...process.env, WATCHDESK_LOG_LEVEL: 'warn' },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c) => (stdout += c))
  child.stderr.on('data', (c) => {
    stderr += c
    onStarted?.(stderr)
  })
  const ended = new Promise<{ head: string; stderr: string; command: number; reader: number }>((resolve) =>
    child.on('close', () => {
      const status = /pipestatus (\d+) (\d+)\n$/.exec(stderr)
      resolve({
        head: stdout,
        stderr: stderr.replace(/pipestatus .*\n$/, ''),
        command: Number(status?.[1] ?? -1),
        reader: Number(status?.[2] ?? -1),
      })
    }),
  )
  return { child, ended, exited: () => child.exitCode !== null || child.signalCode !== null }
}

/** The same command through main() in this process, printed as the process prints (redaction and
 * the terminal guard on each line): the whole output the pipe cut short. */
async function unpiped(args: string[]): Promise<{ code: number; out: string[]; err: string }> {
  let out = ''
  let err = ''
  const io: CliIo = {
    out: (l) => (out += `${terminalSafe(redact(l))}\n`),
    err: (l) => (err += `${terminalSafe(redact(l))}\n`),
    env: { WATCHDESK_LOG_LEVEL: 'warn' },
  }
  const code = await main(args, io)
  return { code, out: out.split('\n').slice(0, -1), err }
}

/** The 3 a.m. trial of a reader that stops early: every command whose output runs to many lines,
 * piped by bash into `head -1`, a real process. Most of these print far more than a pipe holds
 * (64 KiB), so the command is still writing when head has gone: its next write fails with EPIPE. */
describe('every command with long output, piped to head -1 (a real bash pipe)', () => {
  let dataDir = ''
  let backend: Backend
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watchdesk-closed-pipe-'))
    backend = unwrap(
      await startBackend({
        dataDir,
        shell: 'serve',
        env: {},
        log: silentLogger,
        listenerPort: 0,
        secrets: createMemoryStore({}),
      }),
    )
    await inThreadCommitter(backend.context.db).commit(payoutEvents(3000, 'evt_pipe').map(eventParams), [])
  })
  afterAll(async () => {
    await backend?.close()
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
  })

  // `events --json | head -1` and `chains --json | head -1` are in conventions.test.ts. One shell
  // of `completion` (fish's script is the longest, 41 kB) and one document of `openapi` (the
  // console's, 0.7 MB): the others are the same command writing the same way, less of it, and each
  // case is a Node start (about 0.4 CPU-s).
  const commands: string[][] = [
    ['--help'],
    ['events', '--help'],
    ['events', '--limit', '3000'],
    ['storage'],
    ['config', 'get', '--effective'],
    ['completion', 'fish'],
    ['openapi', 'console'],
  ]

  it.each(commands.map((c) => [c.join(' '), c] as const))(
    '%s: the first line, no stack or EPIPE, the exit status it has unpiped',
    async (_name, command) => {
      const dirArgs = ['completion', 'openapi', '--help'].includes(command[0]!) ? [] : ['--data-dir', dataDir]
      const args = [...command, ...dirArgs]
      const whole = await unpiped(args)
      expect(whole.out.length, 'output of more than one line').toBeGreaterThan(1)
      const piped = await pipedToHead(args).ended
      expect(piped.reader).toBe(0)
      expect(piped.head).toBe(`${whole.out[0]}\n`)
      expect(piped.stderr).not.toMatch(/EPIPE|\n\s+at |Error/)
      expect(piped.stderr).toBe(whole.err)
      expect(piped.command).toBe(whole.code)
    },
  )

  it('events --follow --json: ends at its next event after head has gone, exit 0, quietly', async () => {
    let started = false
    const follow = pipedToHead(
      ['events', '--follow', '--json', '--interval', '50', '--data-dir', dataDir],
      (e) => {
        started ||= e.includes('following new events')
      },
    )
    await waitFor(() => started, 'events --follow to start', { timeoutMs: 30_000 })
    // Head takes the first new event and goes; the follow only learns so when it writes the next.
    let n = 0
    await waitFor(
      async () => {
        if (follow.exited()) return true
        await inThreadCommitter(backend.context.db).commit(
          payoutEvents(1, `evt_follow_${n++}`).map(eventParams),
          [],
        )
        return false
      },
      'the follow to end once head has gone',
      { timeoutMs: 30_000, intervalMs: 100 },
    )
    const piped = await follow.ended
    expect(JSON.parse(piped.head)).toMatchObject({ id: 'evt_follow_0_0' })
    expect(piped.stderr).toBe(`following new events in ${join(dataDir, 'watchdesk.db')} (Ctrl-C ends)\n`)
    expect([piped.command, piped.reader]).toEqual([0, 0])
  })
})
