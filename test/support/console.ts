import { afterAll, afterEach, expect } from 'vitest'
import { z } from 'zod'
import { isMethodName, methods } from '../../src/shared/contract'
import { createMemoryStore } from '../../src/main/secrets'
import type { SecretStore } from '../../src/main/secrets'
import { silentLogger } from '../../src/main/log'
import { startConsole } from '../../src/main/serve'
import type { RunningConsole, ServeOptions } from '../../src/main/serve'
import { errorCodes, unwrap } from '../../src/shared/result'

/** Starts serve mode in this process on a free loopback port, stopped after each test (or, with
 * `{ per: 'file' }`, after the file's last test, for a console started in `beforeAll`). */
export function useTestConsole({ per = 'test' }: { per?: 'test' | 'file' } = {}): (
  options: Partial<ServeOptions> & { dataDir: string; secrets?: SecretStore },
) => Promise<RunningConsole> {
  const running: RunningConsole[] = []
  ;(per === 'test' ? afterEach : afterAll)(async () => {
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

/** Calls a contract method over HTTP, as the browser UI does, and checks the answer against the
 * contract before the test sees it (see checkAnswer). */
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
  const json: unknown = await response.json()
  checkAnswer(method, json)
  return { status: response.status, json }
}

const ApiFailure = z
  .object({
    ok: z.literal(false),
    error: z
      .object({ code: z.enum(errorCodes), message: z.string().min(1), detail: z.unknown().optional() })
      .strict(),
  })
  .strict()

/** Every API answer a test reads is what the contract declares: an error value with a known code
 * and a sentence, or a value that the method's response schema accepts as it is — a field the
 * contract does not declare (zod would drop it) or a declared one missing fails the test. */
export function checkAnswer(method: string, json: unknown): void {
  if (!isMethodName(method)) {
    // Unknown names are a test of the dispatcher: the answer must still be a proper error.
    expect(ApiFailure.safeParse(json).success, JSON.stringify(json)).toBe(true)
    return
  }
  const answer = z.object({ ok: z.boolean() }).passthrough().parse(json)
  if (!answer.ok) {
    const failure = ApiFailure.safeParse(json)
    expect(failure.success, `${method} failed with ${JSON.stringify(json)}`).toBe(true)
    return
  }
  expect(Object.keys(answer).sort(), `${method} answered ${JSON.stringify(json)}`).toEqual(['ok', 'value'])
  const parsed = methods[method].response.safeParse(answer.value)
  if (!parsed.success) {
    throw new Error(`${method} answered outside its contract: ${z.prettifyError(parsed.error)}`)
  }
  // JSON round trip: what the contract keeps is exactly what was sent.
  expect(JSON.parse(JSON.stringify(parsed.data)), `${method}: the answer and its contract differ`).toEqual(
    answer.value,
  )
}
