import { afterEach } from 'vitest'
import { createMemoryStore } from '../../src/main/secrets'
import type { SecretStore } from '../../src/main/secrets'
import { silentLogger } from '../../src/main/log'
import { startConsole } from '../../src/main/serve'
import type { RunningConsole, ServeOptions } from '../../src/main/serve'
import { unwrap } from '../../src/shared/result'

/** Starts serve mode in this process on a free loopback port, stopped after each test. */
export function useTestConsole(): (
  options: Partial<ServeOptions> & { dataDir: string; secrets?: SecretStore },
) => Promise<RunningConsole> {
  const running: RunningConsole[] = []
  afterEach(async () => {
    for (const c of running.splice(0)) await c.close()
  })
  return async (options) => {
    const started = unwrap(
      await startConsole({
        port: 0,
        listenerPort: 0,
        token: 'test-token-0123456789',
        secrets: createMemoryStore(),
        log: silentLogger,
        env: {},
        ...options,
      }),
    )
    running.push(started)
    return started
  }
}

export async function callApi(
  c: RunningConsole,
  method: string,
  body: unknown = {},
): Promise<{ status: number; json: any }> {
  const response = await fetch(`${c.url}/api/call/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, json: await response.json() }
}
