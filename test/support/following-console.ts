import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startBackend } from '../../src/main/backend'
import type { Backend } from '../../src/main/backend'
import { silentLogger } from '../../src/main/log'
import { createMemoryStore } from '../../src/main/secrets'
import type { PollClock } from '../../src/shared/clock'
import { unwrap } from '../../src/shared/result'

/** A console back end in `dataDir` whose config (`sources`, `forward`, `alerts`, …) is laid over it
 * as `--config`, with its secrets in memory: how the relay tests and `bench:relay` start a console
 * that follows relays. The caller closes it. */
export async function startFollowingConsole(options: {
  dataDir: string
  config: Record<string, unknown>
  secrets: Record<string, string>
  clock?: PollClock
}): Promise<Backend> {
  const overlay = join(options.dataDir, 'overlay.json')
  writeFileSync(overlay, JSON.stringify(options.config))
  return unwrap(
    await startBackend({
      dataDir: options.dataDir,
      configFile: overlay,
      shell: 'serve',
      env: {},
      log: silentLogger,
      listenerPort: 0,
      secrets: createMemoryStore(options.secrets),
      ...(options.clock ? { clock: options.clock } : {}),
    }),
  )
}
