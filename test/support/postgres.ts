import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, inject } from 'vitest'
import { clusterAt, startCluster } from './postgres-cluster'
import type { PrivateCluster } from './postgres-cluster'
import { sharedClusterAddress } from './postgres-shared'

export { startCluster, postgresBinDir } from './postgres-cluster'
export type { PrivateCluster } from './postgres-cluster'

/** PostgreSQL for the tests of a describe (or file): started in beforeAll, released in afterAll.
 *
 * By default the run's shared cluster (test/support/postgres-shared.ts): `createDatabase(name)`
 * makes a database of this describe's own (the name gets a suffix: read it from the URL it
 * returns; `psql(name, …)` takes the name as given), and the databases are dropped afterwards.
 * Such a cluster cannot be stopped, frozen or restarted: a describe that does that, or wants TLS,
 * asks for `{ own: true }` (`ssl: true` implies it) and gets a cluster of its own. Without the
 * broker (a project without its global setup) every describe gets its own cluster. */
export function usePostgres(options: { ssl?: boolean; own?: boolean } = {}): () => PrivateCluster {
  let cluster: PrivateCluster | null = null
  let release: () => Promise<void> | void = () => {}
  beforeAll(async () => {
    const broker = options.own || options.ssl ? undefined : inject('postgresBroker')
    if (broker) {
      const shared = sharedView(clusterAt(await sharedClusterAddress(broker)))
      cluster = shared.cluster
      release = shared.release
    } else {
      const started = await startCluster({ ssl: options.ssl, scratch: true })
      cluster = started.cluster
      release = started.stop
    }
  }, 60_000)
  afterAll(async () => {
    const done = release
    cluster = null
    release = () => {}
    await done()
  })
  return () => {
    if (!cluster) throw new Error('the PostgreSQL cluster is not started (usePostgres in a describe?)')
    return cluster
  }
}

/** One describe's view of the shared cluster: its own database names, dropped by `release`. */
function sharedView(shared: ReturnType<typeof clusterAt>): { cluster: PrivateCluster; release(): void } {
  const suffix = randomBytes(4).toString('hex')
  const created = new Map<string, string>()
  const actual = (name: string) => created.get(name) ?? name
  const refuse = (what: string) => () => {
    throw new Error(
      `${what}: this describe shares the run's PostgreSQL cluster; usePostgres({ own: true }) gives it one of its own`,
    )
  }
  const cluster: PrivateCluster = {
    url: shared.url,
    port: shared.port,
    createDatabase(name) {
      const unique = `${name}_${suffix}`
      created.set(name, unique)
      return shared.createDatabase(unique)
    },
    psql: (database, sql) => shared.psql(actual(database), sql),
    stopServer: refuse('stopServer'),
    startServer: refuse('startServer'),
    freeze: refuse('freeze'),
    thaw: refuse('thaw'),
    pids: refuse('pids'),
    certFile: null,
  }
  return {
    cluster,
    release() {
      for (const name of created.values())
        shared.psql('postgres', `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    },
  }
}
