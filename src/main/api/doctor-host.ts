import { execFile } from 'node:child_process'
import { existsSync, readdirSync, realpathSync, statSync, accessSync, constants } from 'node:fs'
import { dirname, join } from 'node:path'
import type { DoctorCheck } from '../../shared/contract/app'
import type { Config } from '../../shared/config'
import type { Result } from '../../shared/result'
import { readRuntimeInfo } from '../config'
import type { LoadedConfig } from '../config'
import { headlessKeychainLines, onPath } from '../secrets'
import type { SecretStore } from '../secrets'
import { doctorLine as line } from '../contribution'
import { portIsFree } from './first-run'
import type { PaymentsService } from '../payments'

/** What the doctor looks at. The CLI builds it from the data dir; the app passes its own parts,
 * so `watchdesk doctor` and Settings → Doctor run the same checks. */
export interface DoctorInput {
  dataDir: string
  overlayFile?: string
  env: NodeJS.ProcessEnv
  secrets: SecretStore
  /** The payments service over the loaded config. */
  payments(): Result<PaymentsService>
  /** The console port a start would take (serve's --port, 7420). */
  consolePort: number
  /** This process's own console and listener (the app): their ports are in use by us. */
  own?: { consoleUrl: string | null; listenerUrl: string | null }
  /** Relay stores to open (`--store sqlite:PATH | postgres://…`). */
  stores?: string[]
  /** Each check's deadline: a hanging keychain or node is a finding, never a hang. */
  deadlineMs?: number
}

/* The doctor's checks of the host itself, before any capability's: Node.js, the keychain, the
 * data dir, the config and the ports. */

/** The known places a Node 22 is installed by the README, the CI script and the brief. Kept in
 * step with the same list in bin/watchdesk (plain JS that runs before anything is built). */
export function nodeCandidates(home: string): string[] {
  return [
    join(home, '.local', 'node22', 'bin', 'node'),
    join(home, '.cache', 'watchdesk', 'node22', 'bin', 'node'),
    join(home, '.local', 'bin', 'node'),
  ]
}

function versionOf(file: string): Promise<string | null> {
  return new Promise((resolve) =>
    execFile(file, ['--version'], { timeout: 3_000 }, (error, stdout) =>
      resolve(error ? null : stdout.trim() || null),
    ),
  )
}

const majorOf = (version: string) => Number(/^v?(\d+)/.exec(version)?.[1] ?? 0)
const realpath = (file: string) => {
  try {
    return realpathSync(file)
  } catch {
    return file
  }
}

/** The Node this runs on, and the `node` a new terminal finds first: the CLI needs 22 or newer. */
export async function nodeCheck(env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const label = 'Node.js'
  // process.execPath is the resolved file; the folder an operator installed is the link's.
  const home = env.HOME ?? ''
  const execPath =
    nodeCandidates(home).find((file) => existsSync(file) && realpath(file) === realpath(process.execPath)) ??
    process.execPath
  const running = process.versions.electron ? null : { version: process.version, file: execPath }
  const onPathFile = onPath('node', env)
  const onPathVersion = onPathFile ? await versionOf(onPathFile) : null
  let good = running && majorOf(running.version) >= 22 ? running : null
  if (!good && onPathFile && onPathVersion && majorOf(onPathVersion) >= 22)
    good = { version: onPathVersion, file: onPathFile }
  if (!good) {
    for (const file of nodeCandidates(home)) {
      if (!existsSync(file)) continue
      const version = await versionOf(file)
      if (version && majorOf(version) >= 22) {
        good = { version, file }
        break
      }
    }
  }
  if (!good)
    return line({
      area: 'node',
      label,
      state: 'fail',
      detail: `no Node.js 22 or newer found (a new terminal runs ${onPathVersion ?? 'no node'}${onPathFile ? ` from ${onPathFile}` : ''})`,
      fix: 'npm i -g --prefix ~/.local/node22 node@22\nexport PATH=~/.local/node22/bin:$PATH   # and add this line to ~/.bashrc',
    })
  const samePath = onPathFile && realpath(onPathFile) === realpath(good.file)
  if (samePath || (onPathVersion && majorOf(onPathVersion) >= 22))
    return line({ area: 'node', label, state: 'ok', detail: `${good.version} at ${good.file}`, fix: null })
  return line({
    area: 'node',
    label,
    state: 'warn',
    detail: `${good.version} at ${good.file}, but a new terminal runs ${onPathVersion ?? 'no node'}${onPathFile ? ` from ${onPathFile}` : ''} (bin/watchdesk still finds ${good.file})`,
    fix: `export PATH=${dirname(good.file)}:$PATH   # and add this line to ~/.bashrc`,
  })
}

export async function keychainCheck(input: DoctorInput, deadlineMs: number): Promise<DoctorCheck> {
  const label = 'Keychain'
  let timer: NodeJS.Timeout | undefined
  const status = await Promise.race([
    input.secrets.status(),
    new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), deadlineMs))),
  ]).finally(() => clearTimeout(timer))
  // Reading works on a bus whose keyring was never unlocked (gnome-keyring starts on demand with
  // no login collection); storing a key then fails. So the doctor stores and removes a probe.
  const written = status?.reachable ? await probeWrite(input.secrets) : null
  if (status?.reachable && written === null)
    return line({
      area: 'keychain',
      label,
      state: 'ok',
      detail: `${status.message.replace(/\.$/, '')}; a secret can be stored and removed.`,
      fix: null,
    })
  const linux = process.platform === 'linux'
  const noBus = linux && !input.env.DBUS_SESSION_BUS_ADDRESS
  const cause = !status
    ? `the Secret Service did not answer within ${deadlineMs / 1000} s (a locked keyring waiting for a prompt nobody sees?)`
    : written
      ? `the keychain can be read but nothing can be stored in it (${written}): no unlocked keyring`
      : noBus
        ? 'no D-Bus session bus in this shell (DBUS_SESSION_BUS_ADDRESS is unset), so the Secret Service cannot be reached'
        : status.message
  const fix = linux
    ? `Without a desktop session, run these lines in this shell (then run watchdesk from it):\n${headlessKeychainLines(input.env).join('\n')}\nOr start a shell that has a bus: dbus-run-session -- bash (then the last line).\nOn a server without a keychain, set WATCHDESK_API_KEY, WATCHDESK_WEBHOOK_SECRETS and WATCHDESK_PROJECT_UID instead.`
    : 'Unlock the OS keychain (Keychain Access on macOS, Credential Manager on Windows).'
  // Secrets from the environment keep a server working without a keychain: a warning.
  if (status?.backend === 'environment')
    return line({ area: 'keychain', label, state: 'warn', detail: status.message, fix })
  return line({ area: 'keychain', label, state: 'fail', detail: cause, fix })
}

/** Stores and removes a throwaway secret; the reason when that fails, null when it works. */
async function probeWrite(secrets: SecretStore): Promise<string | null> {
  const account = 'doctor-probe'
  const stored = await secrets.set(account, `probe-${process.pid}-${Date.now()}`)
  if (!stored.ok)
    return stored.error.message.replace(/^The OS keychain is not reachable \((.*?)\)\..*$/s, '$1')
  await secrets.delete(account)
  return null
}

function modeOf(path: string): number | null {
  try {
    return statSync(path).mode & 0o777
  } catch {
    return null
  }
}

export function dataDirCheck(dataDir: string): DoctorCheck {
  const label = 'Data dir'
  const mode = modeOf(dataDir)
  if (mode === null)
    return line({
      area: 'data-dir',
      label,
      state: 'warn',
      detail: `${dataDir} does not exist yet; it is created (mode 0700) at the first start or config set`,
      fix: null,
    })
  try {
    accessSync(dataDir, constants.W_OK)
  } catch {
    return line({
      area: 'data-dir',
      label,
      state: 'fail',
      detail: `${dataDir} is not writable by this user`,
      fix: `chown -R "$USER" ${dataDir}, or pass --data-dir (or WATCHDESK_DATA_DIR) with a folder of yours`,
    })
  }
  let names: string[] = []
  try {
    names = readdirSync(dataDir)
  } catch (error) {
    return line({
      area: 'data-dir',
      label,
      state: 'fail',
      detail: `${dataDir} cannot be listed (${(error as Error).message})`,
      fix: `chown -R "$USER" ${dataDir} && chmod 700 ${dataDir}`,
    })
  }
  const open = names
    .filter((name) => /^(watchdesk\.(db|lock|log)|config\.json)/.test(name))
    .filter((name) => ((modeOf(join(dataDir, name)) ?? 0) & 0o077) !== 0)
  if ((mode & 0o077) !== 0 || open.length > 0)
    return line({
      area: 'data-dir',
      label,
      state: 'warn',
      detail: `${dataDir} is ${mode.toString(8).padStart(4, '0')}${open.length > 0 ? `; readable by others: ${open.join(', ')}` : ''} (should be 0700, files 0600; the next start fixes it)`,
      fix: `chmod 700 ${dataDir} && chmod 600 ${dataDir}/watchdesk.* ${dataDir}/config.json*`,
    })
  return line({ area: 'data-dir', label, state: 'ok', detail: `${dataDir} (0700, files 0600)`, fix: null })
}

export function configCheck(loaded: Result<LoadedConfig>): DoctorCheck {
  const label = 'Config'
  if (!loaded.ok)
    return line({
      area: 'config',
      label,
      state: 'fail',
      detail: loaded.error.message,
      fix: 'Fix the named key with "watchdesk config set KEY VALUE" (or unset it), or edit the file.',
    })
  const keys = Object.keys(loaded.value.saved).length
  const detail =
    keys === 0
      ? `no ${loaded.value.file} yet: defaults in use`
      : `${loaded.value.file} is valid (${keys} top-level key${keys === 1 ? '' : 's'})`
  return line({
    area: 'config',
    label,
    state: 'ok',
    detail: detail + (loaded.value.overlayFile ? `, with ${loaded.value.overlayFile} over it` : ''),
    fix: null,
  })
}

export const portOf = (url: string | null | undefined): number | null => {
  if (!url) return null
  try {
    return Number(new URL(url).port) || null
  } catch {
    return null
  }
}

export async function portsCheck(input: DoctorInput, config: Config): Promise<DoctorCheck[]> {
  const runtime = readRuntimeInfo(input.dataDir)
  const { host, port: listenerPort } = config.listener
  const one = async (what: 'console' | 'listener', port: number): Promise<DoctorCheck> => {
    const label = what === 'console' ? 'Console port' : 'Listener port'
    const ownUrl = what === 'console' ? input.own?.consoleUrl : input.own?.listenerUrl
    const runUrl = what === 'console' ? runtime?.consoleUrl : runtime?.listenerUrl
    // In the console: the port it listens on (--port, --listener-port or 0 may differ from the config).
    if (portOf(ownUrl) !== null)
      return line({
        area: 'ports',
        label,
        state: 'ok',
        detail: `${portOf(ownUrl)}: this console listens on it`,
        fix: null,
      })
    if (runtime && portOf(runUrl) === port)
      return line({
        area: 'ports',
        label,
        state: 'ok',
        detail: `${port}: used by the watchdesk running with this data dir (pid ${runtime.pid})`,
        fix: null,
      })
    if (await portIsFree(host, port))
      return line({ area: 'ports', label, state: 'ok', detail: `${host}:${port} is free`, fix: null })
    const lookup = `ss -ltnp 'sport = :${port}'   # which program holds it`
    return line({
      area: 'ports',
      label,
      state: what === 'console' ? 'warn' : 'fail',
      detail: `${host}:${port} is in use by another program${what === 'listener' ? ': webhooks cannot be received' : ''}`,
      fix:
        what === 'console'
          ? `${lookup}\nor start with another port: watchdesk serve --port 7430`
          : `${lookup}\nor watchdesk config set listener.port 7431`,
    })
  }
  return Promise.all([one('console', input.consolePort), one('listener', listenerPort)])
}
