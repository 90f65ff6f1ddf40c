import { existsSync } from 'node:fs'
import type { Demo } from '../../../src/main/demo'
import { accounts } from '../../../src/main/secrets'
import { unwrap } from '../../../src/shared/result'

/** Debian's libfaketime (package libfaketime): preloaded, it moves this process's wall clock. */
export const libfaketime = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1'
export const haveFaketime = existsSync(libfaketime)

/** The environment of a `bin/watchdesk` whose wall clock runs `aheadSeconds` ahead, polling the
 * demo's (unfaked) chains and payments stand-in with the demo's credentials from the environment. */
export async function fakedClockEnv(demo: Demo, aheadSeconds: number): Promise<NodeJS.ProcessEnv> {
  return {
    ...process.env,
    LD_PRELOAD: libfaketime,
    FAKETIME: `${aheadSeconds >= 0 ? '+' : ''}${aheadSeconds}s`,
    // Timers and performance.now() stay on the real monotonic clock: only the wall clock is off.
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
    WATCHDESK_PROJECT_UID: unwrap(await demo.secrets.get(accounts.projectUid))!,
    WATCHDESK_API_KEY: unwrap(await demo.secrets.get(accounts.apiKey('demo')))!,
    WATCHDESK_WEBHOOK_SECRETS: unwrap(await demo.secrets.get(accounts.webhookSecret('demo')))!,
  }
}
