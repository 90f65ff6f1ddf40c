import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestProject } from 'vitest/node'
import { startCluster } from './postgres-cluster'
import type { ClusterAddress } from './postgres-cluster'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The address of the run's PostgreSQL broker (see usePostgres): POST /cluster?worker=N answers
     * the ClusterAddress of worker N's shared cluster, starting it on the first request. */
    postgresBroker: string
  }
}

/** Global setup of the unit project: one PostgreSQL cluster per worker for the files that do not
 * stop or freeze their server, instead of one per file (a cluster costs about 1.3 s of CPU and 10 s
 * of wall time to start and stop on a loaded machine). Per worker, not per run: a worker runs one
 * file at a time, and files must not run side by side on one cluster, because the relay's sync
 * feed reads only below the oldest transaction running in the whole cluster (pg_snapshot_xmin),
 * so another file's open transaction would hold back this file's reads. A cluster starts on its
 * worker's first request, so a run without PostgreSQL files starts none. Each file works in
 * databases of its own (usePostgres names them apart and ends their sessions after the file). */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = new Map<string, ReturnType<typeof startCluster>>()
  const server = createServer((req, res) => {
    const worker = /^\/cluster\?worker=(\d+)$/.exec(req.url ?? '')?.[1]
    if (req.method !== 'POST' || !worker) return void res.writeHead(404).end()
    if (!started.has(worker)) started.set(worker, startCluster({ scratch: true }))
    started.get(worker)!.then(
      ({ address }) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(address)),
      (e: Error) => res.writeHead(500).end(e.message),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  project.provide('postgresBroker', `http://127.0.0.1:${(server.address() as AddressInfo).port}`)
  return async () => {
    server.close()
    for (const starting of started.values()) (await starting.catch(() => null))?.stop()
  }
}

/** The address of this worker's shared cluster, from the broker. */
export async function sharedClusterAddress(broker: string): Promise<ClusterAddress> {
  const worker = process.env.VITEST_POOL_ID ?? '0'
  const res = await fetch(`${broker}/cluster?worker=${worker}`, { method: 'POST' })
  if (!res.ok) throw new Error(`the run's PostgreSQL cluster did not start: ${await res.text()}`)
  return (await res.json()) as ClusterAddress
}
