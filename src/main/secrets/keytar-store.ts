import { err, ok } from '../../shared/result'
import type { Err, Result } from '../../shared/result'
import { redactFromLogs } from '../log'
import type { SecretStore } from './store'

type Keytar = typeof import('keytar')

/** The OS keychain through keytar (Keychain on macOS, Credential Vault on Windows, the Secret
 * Service on Linux). There is no plaintext fallback: an unreachable keychain is an error. */
export function createKeytarStore(
  service = 'watchdesk',
  load: () => Promise<Keytar> = loadKeytar,
): SecretStore {
  let keytar: Promise<Result<Keytar>> | undefined
  const lib = () =>
    (keytar ??= load().then(
      (k) => ok(k),
      (error: unknown) =>
        err(
          'keychain_unavailable',
          `The keychain module (keytar) failed to load: ${describe(error)}. ` +
            `Reinstall with "npm ci" (on Debian/Ubuntu it builds against libsecret: apt-get install libsecret-1-dev).`,
        ),
    ))

  async function call<T>(action: (k: Keytar) => Promise<T>): Promise<Result<T>> {
    const loaded = await lib()
    if (!loaded.ok) return loaded
    try {
      return ok(await action(loaded.value))
    } catch (error) {
      return keychainFailure(error)
    }
  }

  return {
    get: async (account) => {
      const result = await call((k) => k.getPassword(service, account))
      if (result.ok && result.value) redactFromLogs(result.value)
      return result
    },
    set: (account, secret) => {
      redactFromLogs(secret)
      return call((k) => k.setPassword(service, account, secret))
    },
    delete: (account) => call((k) => k.deletePassword(service, account)),
    list: async () => {
      const result = await call((k) => k.findCredentials(service))
      if (!result.ok) return result
      return ok(
        result.value.map(({ account, password }) => {
          redactFromLogs(password)
          return { account, secret: password, source: 'keychain' as const }
        }),
      )
    },
    status: async () => {
      const probe = await call((k) => k.findCredentials(service))
      return probe.ok
        ? { reachable: true, backend: 'keychain', message: 'The OS keychain is reachable.' }
        : { reachable: false, backend: 'keychain', message: probe.error.message }
    },
  }
}

async function loadKeytar(): Promise<Keytar> {
  const mod = (await import('keytar')) as Keytar & { default?: Keytar }
  return mod.default ?? mod
}

/** Turns keytar's terse failures into a sentence with the cause and the fix. */
export function keychainFailure(error: unknown): Err {
  const cause = describe(error)
  const linux =
    /D-Bus|DBus|org\.freedesktop|secret|X11|autolaunch|collection|prompt/i.test(cause) ||
    process.platform === 'linux'
  const fix = linux
    ? 'On Linux, watchdesk keeps secrets in the Secret Service on D-Bus: run a keyring (gnome-keyring or ' +
      "KeePassXC's Secret Service) in your desktop session and unlock it; without a desktop session, " +
      '"watchdesk doctor" prints the two lines that start one. On a server without a keychain, ' +
      'start serve mode with WATCHDESK_API_KEY, WATCHDESK_WEBHOOK_SECRETS and WATCHDESK_PROJECT_UID instead.'
    : 'Unlock the OS keychain (Keychain Access on macOS, Credential Manager on Windows) and try again.'
  return err('keychain_unavailable', `The OS keychain is not reachable (${cause}). ${fix}`)
}

function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).trim().replace(/\.$/, '')
}
