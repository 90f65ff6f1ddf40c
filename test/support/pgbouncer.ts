import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { freePort } from './ports'
import { waitFor } from './wait'

export interface Bouncer {
  port: number
  /** The same database through PgBouncer: `postgres://USER@127.0.0.1:PORT/DB`. */
  urlFor(database: string, user?: string): string
  stop(): Promise<void>
}

const asRoot = process.getuid?.() === 0

/** Debian's PgBouncer in transaction pooling (what managed PostgreSQL offerings put in front), on a
 * free loopback port in front of a private cluster. PgBouncer refuses to run as root, so as root it
 * runs as `postgres` (setpriv execs it: the pid we hold is PgBouncer's own). */
export async function startPgBouncer(postgresPort: number, users: string[]): Promise<Bouncer> {
  const dir = mkdtempSync(join(tmpdir(), 'watchdesk-pgbouncer-'))
  const port = await freePort()
  writeFileSync(join(dir, 'users.txt'), users.map((u) => `"${u}" ""`).join('\n') + '\n')
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=127.0.0.1 port=${postgresPort}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 1000',
      'default_pool_size = 20',
      'ignore_startup_parameters = extra_float_digits',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  )
  let command = '/usr/sbin/pgbouncer'
  let args = [join(dir, 'pgbouncer.ini')]
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
    chownSync(dir, uid, gid)
    for (const f of ['users.txt', 'pgbouncer.ini']) chownSync(join(dir, f), uid, gid)
    args = [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', command, ...args]
    command = 'setpriv'
  }
  const child: ChildProcess = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir })
  let output = ''
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()))
  await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`pgbouncer exited (${child.exitCode}): ${output}`)
      return new Promise<boolean | undefined>((resolve) => {
        const socket = connect(port, '127.0.0.1')
        socket.once('connect', () => (socket.destroy(), resolve(true)))
        socket.once('error', () => resolve(undefined))
      })
    },
    'PgBouncer to listen',
    { timeoutMs: 10_000 },
  )
  return {
    port,
    urlFor: (database, user = 'postgres') => `postgres://${user}@127.0.0.1:${port}/${database}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        await exited
      }
      if (existsSync(dir)) rmSync(dir, { recursive: true, force: true })
    },
  }
}
