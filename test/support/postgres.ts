import { afterAll, beforeAll } from 'vitest'
import { startCluster } from './postgres-cluster'
import type { PrivateCluster } from './postgres-cluster'

export { startCluster, postgresBinDir } from './postgres-cluster'
export type { PrivateCluster } from './postgres-cluster'

/** One cluster per test file: started in beforeAll, stopped (exactly it) in afterAll. */
export function usePostgres(options: { ssl?: boolean } = {}): () => PrivateCluster {
  let started: Awaited<ReturnType<typeof startCluster>> | null = null
  beforeAll(async () => {
    started = await startCluster(options)
  }, 60_000)
  afterAll(() => {
    started?.stop()
    started = null
  })
  return () => {
    if (!started) throw new Error('the PostgreSQL cluster is not started (usePostgres in a describe?)')
    return started.cluster
  }
}
