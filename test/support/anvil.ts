import { afterAll, afterEach } from 'vitest'
import { anvilRpc, startAnvil } from '../../src/main/demo/anvil'
import type { AnvilNode, AnvilOptions } from '../../src/main/demo/anvil'
import { unwrap } from '../../src/shared/result'

export { anvilRpc }
export type { AnvilNode }

/** Real anvil nodes on free loopback ports; each test's nodes are killed after it (or after the
 * file, with `scope: 'file'`). Only the children spawned here are ever signalled. */
export function useAnvil(scope: 'test' | 'file' = 'test'): (options: AnvilOptions) => Promise<AnvilNode> {
  const started: AnvilNode[] = []
  const stopAll = async () => {
    await Promise.all(started.splice(0).map((node) => node.stop()))
  }
  if (scope === 'test') afterEach(stopAll)
  else afterAll(stopAll)
  return async (options) => {
    const node = unwrap(await startAnvil(options))
    started.push(node)
    return node
  }
}

export async function headOf(url: string): Promise<number> {
  return Number.parseInt((await anvilRpc(url, 'eth_blockNumber')) as string, 16)
}
