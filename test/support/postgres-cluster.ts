import { execFile, execFileSync, spawnSync } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort } from './ports'
import { selfSignedCert } from './tunnel'

/** A private PostgreSQL cluster for one test file: initdb in a temp dir, started with pg_ctl on a
 * free loopback port (trust auth, its own socket dir), stopped and removed in afterAll. As root
 * (CI containers) the cluster runs as the `postgres` user, which owns the temp dir. */
export interface PrivateCluster {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string
  port: number
  /** A fresh database in the cluster; returns its URL. */
  createDatabase(name: string): string
  /** Stops the server (pg_ctl stop -m fast), as an outage would; `startServer` brings it back. */
  stopServer(): void
  startServer(): void
  /** SIGSTOP to this cluster's processes only (its postmaster and that postmaster's children):
   * the server keeps its sockets open and answers nothing, as a frozen host would. */
  freeze(): void
  /** SIGCONT to the same processes. */
  thaw(): void
  /** The postmaster's pid and its children's now (benches pin them to CPUs with taskset). */
  pids(): number[]
  /** Runs SQL as the superuser in `database` (psql over the cluster's socket). */
  psql(database: string, sql: string): void
  /** With `ssl: true`: the server's self-signed certificate (its own CA, CN and SAN 127.0.0.1). */
  certFile: string | null
}

export function postgresBinDir(): string {
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim()
    if (existsSync(join(dir, 'initdb'))) return dir
  } catch {
    // pg_config may be missing (Debian puts initdb under /usr/lib/postgresql/N/bin)
  }
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : []
  if (versions.length === 0)
    throw new Error('PostgreSQL is not installed: apt-get install postgresql (initdb and pg_ctl are needed).')
  return join(root, versions[0]!, 'bin')
}

const asRoot = process.getuid?.() === 0

/** A data directory fresh from initdb (trust auth, user postgres, UTF8), made once per PostgreSQL
 * build and user and kept in the temp dir; each cluster starts from a copy (`cp -a`), which is what
 * initdb would have written. Made in a directory of its own and renamed into place, so files
 * starting at once never see half of one: the first rename wins, the others discard theirs. */
function initializedDataDir(bin: string): string {
  const version = execFileSync(join(bin, 'initdb'), ['--version'], { encoding: 'utf8' })
    .trim()
    .replace(/[^\w.]+/g, '-')
  const template = join(tmpdir(), `watchdesk-pg-template-${version}-${process.getuid?.() ?? 'user'}`)
  if (existsSync(join(template, 'PG_VERSION'))) return template
  const building = mkdtempSync(join(tmpdir(), 'watchdesk-pg-initdb-'))
  if (asRoot) {
    const owner = postgresOwner()
    chownSync(building, owner.uid, owner.gid)
  }
  const data = join(building, 'data')
  run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'])
  try {
    renameSync(data, template)
  } catch {
    // Another file's initdb got there first: use that one.
  }
  rmSync(building, { recursive: true, force: true })
  return template
}

function postgresOwner(): { uid: number; gid: number } {
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
  }
}

function asServerUser(bin: string, args: string[]): [string, string[]] {
  return asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args]
}

function run(bin: string, args: string[]): void {
  const [command, argv] = asServerUser(bin, args)
  const result = spawnSync(command, argv, { encoding: 'utf8', cwd: tmpdir() })
  if (result.status !== 0)
    throw new Error(`${bin} ${args.join(' ')} failed (${result.status}): ${result.stderr || result.stdout}`)
}

/** `run` without blocking the event loop: the run's shared cluster starts in vitest's own process,
 * which serves every worker's module requests meanwhile. */
async function runAsync(bin: string, args: string[]): Promise<void> {
  const [command, argv] = asServerUser(bin, args)
  try {
    await promisify(execFile)(command, argv, { encoding: 'utf8', cwd: tmpdir() })
  } catch (e) {
    const failed = e as { code?: number; stderr?: string; stdout?: string }
    throw new Error(`${bin} ${args.join(' ')} failed (${failed.code}): ${failed.stderr || failed.stdout}`)
  }
}

/** Where a running cluster is: enough for another process to create databases and run SQL in it. */
export interface ClusterAddress {
  bin: string
  /** The cluster's temp dir, which holds its socket. */
  dir: string
  port: number
  /** CREATE DATABASE … STRATEGY (PostgreSQL 15+); the server's default when absent. */
  createStrategy?: 'FILE_COPY' | undefined
}

/** The URL of `database` in the cluster at `address`, as the superuser. */
export const databaseUrl = (address: Pick<ClusterAddress, 'port'>, database: string) =>
  `postgres://postgres@127.0.0.1:${address.port}/${database}`

/** The statement that makes database `name` in the cluster at `address`. */
export const createDatabaseSql = (address: ClusterAddress, name: string) =>
  `CREATE DATABASE "${name}"${address.createStrategy ? ` STRATEGY ${address.createStrategy}` : ''}`

/** The parts of a cluster that only need its address: its URL, new databases, SQL as superuser. */
export function clusterAt(
  address: ClusterAddress,
): Pick<PrivateCluster, 'url' | 'port' | 'createDatabase' | 'psql'> {
  const { bin, dir, port } = address
  const psql = (database: string, sql: string) =>
    run(join(bin, 'psql'), [
      '-h',
      dir,
      '-p',
      String(port),
      '-U',
      'postgres',
      '-v',
      'ON_ERROR_STOP=1',
      '-d',
      database,
      '-c',
      sql,
    ])
  return {
    url: databaseUrl(address, 'postgres'),
    port,
    createDatabase(name) {
      psql('postgres', createDatabaseSql(address, name))
      return databaseUrl(address, name)
    },
    psql,
  }
}

/** A scratch cluster's settings: no fsync, nor the full-page images that only guard against a
 * torn page after an operating-system crash. Whatever a test does to PostgreSQL (stop it, kill it,
 * freeze it) keeps every committed transaction without an fsync: the written pages are in the
 * kernel's cache, which only a machine crash loses, and no test crashes the machine. */
const scratchSettings: Record<string, string> = { fsync: 'off', full_page_writes: 'off' }

/** The major version of the PostgreSQL in `bin` (`initdb (PostgreSQL) 15.18 …` → 15). */
function majorVersion(bin: string): number {
  const version = execFileSync(join(bin, 'initdb'), ['--version'], { encoding: 'utf8' })
  return Number(/\b(\d+)\.\d+/.exec(version)?.[1] ?? 0)
}

/** `ssl: true` turns TLS on (ssl=on) with a self-signed certificate made by openssl for 127.0.0.1.
 * `settings`: more server settings (`-c name=value`), e.g. a bench's pg_stat_statements.
 * `scratch: true` (the tests' clusters): no fsync, and each new database a copy of the template's
 * files (STRATEGY FILE_COPY) rather than written block by block into the WAL: a new database took
 * about 450 ms of the server's CPU (create and drop), 250 ms so, and the test files make about 40.
 * The benches keep the defaults: their figures are about real commits. */
export async function startCluster(
  options: { ssl?: boolean; settings?: Record<string, string>; scratch?: boolean } = {},
): Promise<{ cluster: PrivateCluster; address: ClusterAddress; stop(): void }> {
  const bin = postgresBinDir()
  const dir = mkdtempSync(join(tmpdir(), 'watchdesk-pg-'))
  const owner = asRoot ? postgresOwner() : null
  if (owner) chownSync(dir, owner.uid, owner.gid)
  let ssl = ''
  let certFile: string | null = null
  if (options.ssl) {
    const files = selfSignedCert(dir)
    // PostgreSQL refuses a key others can read, and reads it as the server's user.
    chmodSync(files.keyFile, 0o600)
    if (owner) for (const f of [files.certFile, files.keyFile]) chownSync(f, owner.uid, owner.gid)
    certFile = files.certFile
    ssl = ` -c ssl=on -c ssl_cert_file=${files.certFile} -c ssl_key_file=${files.keyFile}`
  }
  const extra = Object.entries({
    max_connections: '200',
    fsync: 'on',
    ...(options.scratch ? scratchSettings : {}),
    ...options.settings,
  })
    .map(([name, value]) => ` -c ${name}=${value}`)
    .join('')
  const data = join(dir, 'data')
  // A copy of one initdb made for the machine: initdb costs about 2 s of CPU (50 s of wall time at
  // load average 25) and nineteen test files start a cluster; a copy costs a tenth of that.
  await runAsync('cp', ['-a', initializedDataDir(bin), data])
  const port = await freePort()
  const serverArgs = [
    '-D',
    data,
    '-l',
    join(dir, 'log'),
    '-w',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${ssl}${extra}`,
    'start',
  ]
  const startServer = () => run(join(bin, 'pg_ctl'), serverArgs)
  const stopServer = () => run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'])
  /** The postmaster's pid (first line of postmaster.pid) and its children's. */
  const processes = (): number[] => {
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0])
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((pid) => pid > 0)
    return [postmaster, ...children]
  }
  let frozen: number[] = []
  await runAsync(join(bin, 'pg_ctl'), serverArgs)
  // STRATEGY came with PostgreSQL 15; before it, FILE_COPY was the only way.
  const address: ClusterAddress = {
    bin,
    dir,
    port,
    createStrategy: options.scratch && majorVersion(bin) >= 15 ? 'FILE_COPY' : undefined,
  }
  const cluster: PrivateCluster = {
    ...clusterAt(address),
    stopServer,
    startServer,
    freeze() {
      frozen = processes()
      // Children first, so none of them sees its postmaster stop.
      for (const pid of [...frozen].reverse()) process.kill(pid, 'SIGSTOP')
    },
    thaw() {
      for (const pid of frozen) process.kill(pid, 'SIGCONT')
      frozen = []
    },
    pids: () => processes(),
    certFile,
  }
  return {
    cluster,
    address,
    stop() {
      cluster.thaw()
      try {
        if (existsSync(join(data, 'postmaster.pid'))) stopServer()
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}
