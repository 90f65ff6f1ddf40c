import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, inject } from 'vitest'
import { createDatabaseSql, databaseUrl, startCluster } from './postgres-cluster'
import type { ClusterAddress, PrivateCluster } from './postgres-cluster'
import { sharedClusterAddress } from './postgres-shared'

export { startCluster, postgresBinDir } from './postgres-cluster'
export type { PrivateCluster } from './postgres-cluster'

/** What a describe sees of its cluster. Databases are made and SQL runs as the superuser over a
 * client connection of the test's own process, not a `psql` child each time (a process start and a
 * new server backend, twice for every database a test made: created, then dropped). */
export interface TestCluster extends Omit<PrivateCluster, 'createDatabase' | 'psql'> {
  /** A fresh database in the cluster; resolves to its URL. */
  createDatabase(name: string): Promise<string>
  /** Runs SQL as the superuser in `database`. */
  sql(database: string, sql: string): Promise<void>
}

/** PostgreSQL for the tests of a describe (or file): started in beforeAll, released in afterAll.
 *
 * By default the run's shared cluster (test/support/postgres-shared.ts): `createDatabase(name)`
 * makes a database of this describe's own (the name gets a suffix: read it from the URL it
 * returns; `sql(name, …)` takes the name as given), and the databases are dropped afterwards.
 * Such a cluster cannot be stopped, frozen or restarted: a describe that does that, or wants TLS,
 * asks for `{ own: true }` (`ssl: true` implies it) and gets a cluster of its own. Without the
 * broker (a project without its global setup) every describe gets its own cluster. */
export function usePostgres(options: { ssl?: boolean; own?: boolean } = {}): () => TestCluster {
  let cluster: TestCluster | null = null
  let release: () => Promise<void> = async () => {}
  beforeAll(async () => {
    const broker = options.own || options.ssl ? undefined : inject('postgresBroker')
    const view = broker
      ? sharedView(await sharedClusterAddress(broker))
      : ownView(await startCluster({ ssl: options.ssl, scratch: true }))
    cluster = view.cluster
    release = view.release
  }, 60_000)
  afterAll(async () => {
    const done = release
    cluster = null
    release = async () => {}
    await done()
  })
  return () => {
    if (!cluster) throw new Error('the PostgreSQL cluster is not started (usePostgres in a describe?)')
    return cluster
  }
}

/** SQL as the superuser over the cluster's socket: one connection to the maintenance database,
 * opened at the first statement; a statement in another database opens one for itself. */
function superuserSession(address: ClusterAddress): {
  run(database: string, sql: string): Promise<void>
  /** How many sessions are connected to `database` (asked over the maintenance connection). */
  sessionsOn(database: string): Promise<number>
  /** Ends the maintenance connection (before the server stops, or when the describe is done). */
  end(): Promise<void>
} {
  let maintenance: Promise<pg.Client> | null = null
  const connect = async (database: string) => {
    const client = new pg.Client({ host: address.dir, port: address.port, user: 'postgres', database })
    // A server stopped or killed under an idle connection reports it here; nothing waits on it.
    client.on('error', () => {})
    await client.connect()
    return client
  }
  const end = async (client: Promise<pg.Client> | null) =>
    (await client?.catch(() => null))?.end().catch(() => {})
  return {
    async run(database, sql) {
      if (database === 'postgres') {
        maintenance ??= connect('postgres')
        await (await maintenance).query(sql)
        return
      }
      const client = connect(database)
      try {
        await (await client).query(sql)
      } finally {
        await end(client)
      }
    },
    async sessionsOn(database) {
      maintenance ??= connect('postgres')
      const { rows } = await (
        await maintenance
      ).query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [database])
      return rows[0]?.n ?? 0
    },
    async end() {
      const client = maintenance
      maintenance = null
      await end(client)
    },
  }
}

/** A cluster of the describe's own, stopped and removed by `release`. */
function ownView(started: Awaited<ReturnType<typeof startCluster>>): {
  cluster: TestCluster
  release(): Promise<void>
} {
  const { cluster: own, address } = started
  const session = superuserSession(address)
  const { createDatabase: _create, psql: _psql, ...rest } = own
  const cluster: TestCluster = {
    ...rest,
    async createDatabase(name) {
      await session.run('postgres', createDatabaseSql(address, name))
      return databaseUrl(address, name)
    },
    sql: (database, sql) => session.run(database, sql),
    stopServer() {
      // The server ends the connection; the next statement opens a new one.
      void session.end()
      own.stopServer()
    },
  }
  return {
    cluster,
    async release() {
      await session.end()
      started.stop()
    },
  }
}

/** Waits (up to 5 s) for the sessions still on `database` to go before it is dropped. A pg pool's
 * `end()` resolves once it has asked its clients to end, before their sockets close: a FORCE drop
 * in that moment terminates them, and a client already removed from its pool has no 'error'
 * listener left, so the termination (57P01) became an uncaught exception in the test's worker.
 * Sessions a test leaves open for good are still ended by the FORCE drop after the wait. */
async function sessionsGone(session: ReturnType<typeof superuserSession>, database: string): Promise<void> {
  const deadline = Date.now() + 5000
  while ((await session.sessionsOn(database)) > 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20))
}

/** One describe's view of the shared cluster: its own database names, dropped by `release`. */
function sharedView(address: ClusterAddress): { cluster: TestCluster; release(): Promise<void> } {
  const session = superuserSession(address)
  const suffix = randomBytes(4).toString('hex')
  const created = new Map<string, string>()
  const actual = (name: string) => created.get(name) ?? name
  const refuse = (what: string) => () => {
    throw new Error(
      `${what}: this describe shares the run's PostgreSQL cluster; usePostgres({ own: true }) gives it one of its own`,
    )
  }
  const cluster: TestCluster = {
    url: databaseUrl(address, 'postgres'),
    port: address.port,
    async createDatabase(name) {
      const unique = `${name}_${suffix}`
      created.set(name, unique)
      await session.run('postgres', createDatabaseSql(address, unique))
      return databaseUrl(address, unique)
    },
    sql: (database, sql) => session.run(actual(database), sql),
    stopServer: refuse('stopServer'),
    startServer: refuse('startServer'),
    freeze: refuse('freeze'),
    thaw: refuse('thaw'),
    pids: refuse('pids'),
    certFile: null,
  }
  return {
    cluster,
    async release() {
      try {
        for (const name of created.values()) {
          await sessionsGone(session, name)
          await session.run('postgres', `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
        }
      } finally {
        await session.end()
      }
    },
  }
}
