import { execFile } from 'node:child_process'
import { existsSync, readdirSync, realpathSync, statSync, accessSync, constants } from 'node:fs'
import { dirname, join } from 'node:path'
import type { DoctorCheck, doctorMethods } from '../../shared/contract/app'
import type { AppContext } from '../context'
import type { Services } from '../services'
import type { ApiHandlers } from '../transport/dispatch'
import type { Config } from '../../shared/config'
import { maskUrlsIn } from '../../shared/config-secrets'
import { ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { loadConfig, readRuntimeInfo } from '../config'
import type { LoadedConfig } from '../config'
import { accounts, headlessKeychainLines, onPath } from '../secrets'
import type { SecretStore } from '../secrets'
import type { PaymentsService } from '../payments'
import { pollerFor, readProjectUid } from '../chains'
import { openRelayStore, parseStoreUrl } from '../relay'
import { fetchPage } from '../sources'
import { listenerIdentityHeader } from '../webhooks'
import { explainFailure, probe } from '../webhooks'
import { portIsFree } from './first-run'
import { clockProbe } from '../clock'
import type { ClockProbe } from '../clock'

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

type Line = Omit<DoctorCheck, 'blockedBy'> & { blockedBy?: string | null }
const line = (l: Line): DoctorCheck => ({ ...l, blockedBy: l.blockedBy ?? null })

/** The known places a Node 22 is installed by the README, the CI script and the brief. Kept in
 * step with the same list in bin/watchdesk (plain JS that runs before anything is built). */
export function nodeCandidates(home: string): string[] {
  return [
    join(home, '.local', 'node22', 'bin', 'node'),
    join(home, '.cache', 'watchdesk', 'node22', 'bin', 'node'),
    join(home, '.local', 'bin', 'node'),
  ]
}

export async function runDoctor(input: DoctorInput): Promise<DoctorCheck[]> {
  const deadline = input.deadlineMs ?? 10_000
  const loaded = loadConfig(input.dataDir, input.overlayFile)
  const config = loaded.ok ? loaded.value.config : null
  const [node, keychain] = await Promise.all([nodeCheck(input.env), keychainCheck(input, deadline)])
  const keychainDown = keychain.state === 'fail' ? 'keychain' : null
  const configBad = loaded.ok ? null : 'config'
  const blocked = (area: DoctorCheck['area'], label: string, by: string): DoctorCheck =>
    line({ area, label, state: 'fail', detail: `blocked by: ${by}`, fix: null, blockedBy: by })
  // The clock is read against the node-access round's block stamps and the gateway's Date.
  const clock = clockProbe(config?.clock.offsetWarnSeconds ?? 5)
  const rest = await Promise.all([
    Promise.resolve(dataDirCheck(input.dataDir)),
    Promise.resolve(configCheck(loaded)),
    config ? portsCheck(input, config) : Promise.resolve([blocked('ports', 'Ports', 'config')]),
    config
      ? within(paymentsChecks(input, config, keychainDown), deadline, 'payments', 'Payments API')
      : Promise.resolve([blocked('payments', 'Payments API', 'config')]),
    config
      ? within(nodeAccessCheck(input, config, keychainDown, clock), deadline, 'node-access', 'Node access')
      : Promise.resolve([blocked('node-access', 'Node access', configBad!)]),
    config ? within(publicUrlCheck(input, config), deadline, 'public-url', 'Public URL') : [],
    config ? within(sourcesChecks(input, config, keychainDown), deadline, 'sources', 'Relay sources') : [],
    within(storeChecks(input.stores ?? []), deadline, 'store', 'Stores'),
  ])
  // A check may quote a configured URL (a source's, apiBaseUrl): never with its credentials.
  const clockLine = clock.line()
  return maskUrlsIn([node, keychain, ...rest.flat(), ...(clockLine ? [clockLine] : [])])
}

/** A check that does not finish in time becomes a failed line, never a hang. */
async function within(
  work: Promise<DoctorCheck[]>,
  ms: number,
  area: DoctorCheck['area'],
  label: string,
): Promise<DoctorCheck[]> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<DoctorCheck[]>((resolve) => {
    timer = setTimeout(
      () =>
        resolve([
          line({
            area,
            label,
            state: 'fail',
            detail: `no answer within ${ms / 1000} s`,
            fix: 'Check the network and the URL in the config; run the doctor again.',
          }),
        ]),
      ms,
    )
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
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
async function nodeCheck(env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
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

async function keychainCheck(input: DoctorInput, deadlineMs: number): Promise<DoctorCheck> {
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

function dataDirCheck(dataDir: string): DoctorCheck {
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

function configCheck(loaded: Result<LoadedConfig>): DoctorCheck {
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

const portOf = (url: string | null | undefined): number | null => {
  if (!url) return null
  try {
    return Number(new URL(url).port) || null
  } catch {
    return null
  }
}

async function portsCheck(input: DoctorInput, config: Config): Promise<DoctorCheck[]> {
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

/** The features the payments API serves, the scope each needs, and how the doctor probes it. */
const features = [
  { name: 'wallets', scope: 'wallets:read', probe: 'wallets' },
  { name: 'webhook endpoints (list)', scope: 'webhooks:read', probe: 'endpoints' },
  { name: 'Connect, create and delete endpoints', scope: 'webhooks:write', probe: null },
] as const

async function paymentsChecks(
  input: DoctorInput,
  config: Config,
  keychainDown: string | null,
): Promise<DoctorCheck[]> {
  const label = 'Payments API'
  if (!config.apiBaseUrl)
    return [
      line({
        area: 'payments',
        label,
        state: 'warn',
        detail: 'apiBaseUrl is not set: wallets and webhook endpoints are unavailable',
        fix: 'watchdesk config set apiBaseUrl https://api.example.com',
      }),
    ]
  const service = input.payments()
  if (!service.ok)
    return [line({ area: 'payments', label, state: 'fail', detail: service.error.message, fix: null })]
  const status = await service.value.status()
  const active = status.ok ? status.value.activeKey : null
  if (!active) {
    if (keychainDown)
      return [
        line({
          area: 'payments',
          label,
          state: 'fail',
          detail: `blocked by: ${keychainDown}`,
          fix: null,
          blockedBy: keychainDown,
        }),
      ]
    return [
      line({
        area: 'payments',
        label,
        state: 'warn',
        detail: `${config.apiBaseUrl}: no API key stored`,
        fix: 'printf %s "$KEY" | watchdesk keys set main --activate   (or WATCHDESK_API_KEY)',
      }),
    ]
  }
  const test = await service.value.testKey({})
  if (!test.ok)
    return [line({ area: 'payments', label, state: 'fail', detail: test.error.message, fix: null })]
  const t = test.value
  const refusedForScope = !t.works && t.status === 403
  if (!t.works && !refusedForScope)
    return [
      line({
        area: 'payments',
        label,
        state: 'fail',
        detail: t.message,
        fix: t.status === 401 ? 'printf %s "$KEY" | watchdesk keys set main --activate' : null,
      }),
    ]
  const apiLine = line({
    area: 'payments',
    label,
    state: 'ok',
    detail: `${t.baseUrl}: the key "${active.name}" (${active.kind}) is accepted`,
    fix: null,
  })
  const endpoints = await service.value.listEndpoints()
  const found = features.map((f) => {
    if (f.probe === 'wallets') return { ...f, has: t.works }
    if (f.probe === 'endpoints')
      return { ...f, has: endpoints.ok ? true : endpoints.error.code === 'forbidden' ? false : null }
    return { ...f, has: null }
  })
  const lacking = found.filter((f) => f.has === false)
  const words = found
    .map((f) =>
      f.has === true
        ? `${f.name}: yes (${f.scope})`
        : f.has === false
          ? `${f.name}: lacks ${f.scope}`
          : `${f.name}: needs ${f.scope} (${f.probe ? 'not answered' : 'not probed: it would write'})`,
    )
    .join(' · ')
  const scopesLine = line({
    area: 'scopes',
    label: 'Key scopes',
    state: lacking.length > 0 ? 'warn' : 'ok',
    detail: words,
    fix:
      lacking.length > 0
        ? `Create a key with ${lacking.map((f) => f.scope).join(', ')} at the service and store it: printf %s "$KEY" | watchdesk keys set main --activate`
        : null,
  })
  const pathLine =
    !endpoints.ok && endpoints.error.code === 'not_found'
      ? [
          line({
            area: 'scopes',
            label: 'Endpoints path',
            state: 'warn',
            detail: endpoints.error.message,
            fix: null,
          }),
        ]
      : []
  return [apiLine, scopesLine, ...pathLine]
}

async function nodeAccessCheck(
  input: DoctorInput,
  config: Config,
  keychainDown: string | null,
  clock: ClockProbe,
): Promise<DoctorCheck[]> {
  const label = 'Node access'
  const { uid, problem } = await readProjectUid(input.secrets)
  if (problem && keychainDown)
    return [
      line({
        area: 'node-access',
        label,
        state: 'fail',
        detail: `blocked by: ${keychainDown}`,
        fix: null,
        blockedBy: keychainDown,
      }),
    ]
  const missing = [!config.rpcBaseUrl && 'rpcBaseUrl', !uid && 'the project uid'].filter(Boolean)
  // A chain with its own chains.<id>.url needs neither.
  const ownUrls = Object.values(config.chains).some((c) => c.url && c.enabled !== false)
  if (missing.length > 0 && !ownUrls)
    return [
      line({
        area: 'node-access',
        label,
        state: 'warn',
        detail: `chains are not polled: no ${missing.join(' and no ')}`,
        fix: [
          !config.rpcBaseUrl && 'watchdesk config set rpcBaseUrl https://rpc.example.com',
          !uid && 'printf %s "$PROJECT_UID" | watchdesk project-uid set',
        ]
          .filter(Boolean)
          .join('\n'),
      }),
    ]
  const poller = pollerFor(config, uid, undefined, problem, undefined, true, clock.references)
  try {
    const chains = (await poller.pollRound()).chains.filter((c) => c.status !== 'not_configured')
    if (chains.length === 0)
      return [
        line({
          area: 'node-access',
          label,
          state: 'warn',
          detail: 'no chain is enabled',
          fix: 'watchdesk config set chains.<id>.enabled true',
        }),
      ]
    const bad = chains.filter((c) => c.status === 'down' || c.status === 'wrong_network')
    const names = (list: typeof chains) =>
      list
        .slice(0, 3)
        .map((c) => `${c.name}: ${c.reason}`)
        .join('; ') + (list.length > 3 ? `; and ${list.length - 3} more` : '')
    if (bad.length === 0)
      return [
        line({
          area: 'node-access',
          label,
          state: 'ok',
          detail: `${chains.length} chain${chains.length === 1 ? '' : 's'} answer at ${config.rpcBaseUrl}`,
          fix: null,
        }),
      ]
    return [
      line({
        area: 'node-access',
        label,
        state: bad.length === chains.length ? 'fail' : 'warn',
        detail: `${bad.length} of ${chains.length} chains do not answer: ${names(bad)}`,
        fix: 'watchdesk chains   # each chain with its reason',
      }),
    ]
  } finally {
    poller.stop()
  }
}

async function publicUrlCheck(input: DoctorInput, config: Config): Promise<DoctorCheck[]> {
  const label = 'Public URL'
  const publicUrl = config.listener.publicUrl
  if (!publicUrl) {
    const relays = Object.keys(config.sources).length
    return [
      line({
        area: 'public-url',
        label,
        state: relays > 0 ? 'ok' : 'warn',
        detail:
          relays > 0
            ? 'not set: events arrive through the relay sources'
            : 'listener.publicUrl is not set: the service cannot deliver webhooks to this console',
        fix:
          relays > 0
            ? null
            : 'Expose the listener through a tunnel or proxy, then Settings → Webhook endpoints → Connect this console',
      }),
    ]
  }
  const url = new URL(publicUrl)
  const outcome = await probe(url, { method: 'HEAD', env: input.env, timeoutMs: 8_000 })
  if (outcome.kind === 'failed') {
    const { message, fix } = explainFailure(url, outcome, input.own?.listenerUrl ?? null)
    return [line({ area: 'public-url', label, state: 'fail', detail: message, fix })]
  }
  if (outcome.headers[listenerIdentityHeader])
    return [
      line({
        area: 'public-url',
        label,
        state: 'ok',
        detail: `${publicUrl} reaches a watchdesk listener`,
        fix: null,
      }),
    ]
  return [
    line({
      area: 'public-url',
      label,
      state: 'warn',
      detail: `${publicUrl} answered ${outcome.status}, but not from a watchdesk listener (no ${listenerIdentityHeader} header)`,
      fix: 'Point the tunnel or proxy at the listener port (7421), not the console; a relay answers for itself.',
    }),
  ]
}

async function sourcesChecks(
  input: DoctorInput,
  config: Config,
  keychainDown: string | null,
): Promise<DoctorCheck[]> {
  const entries = Object.entries(config.sources).filter(([, s]) => s.enabled !== false)
  return Promise.all(
    entries.map(async ([name, source]): Promise<DoctorCheck> => {
      const label = `Relay ${name}`
      const token = await input.secrets.get(accounts.sourceToken(name))
      if (!token.ok)
        return line({
          area: 'sources',
          label,
          state: 'fail',
          detail: keychainDown ? `blocked by: ${keychainDown}` : token.error.message,
          fix: null,
          blockedBy: keychainDown,
        })
      if (!token.value)
        return line({
          area: 'sources',
          label,
          state: 'fail',
          detail: `no token stored as source-token:${name}`,
          fix: `watchdesk relay token create NAME --store … | watchdesk sources add ${name} ${source.url}`,
        })
      const page = await fetchPage(source.url, token.value, '0', 1, false, AbortSignal.timeout(8_000))
      return page.ok
        ? line({ area: 'sources', label, state: 'ok', detail: `${source.url} accepts the token`, fix: null })
        : line({ area: 'sources', label, state: 'fail', detail: page.error.message, fix: null })
    }),
  )
}

async function storeChecks(stores: string[]): Promise<DoctorCheck[]> {
  return Promise.all(
    stores.map(async (text): Promise<DoctorCheck> => {
      const parsed = parseStoreUrl(text)
      const label = 'Store'
      if (!parsed.ok)
        return line({ area: 'store', label, state: 'fail', detail: parsed.error.message, fix: null })
      if (parsed.value.kind === 'sqlite' && !existsSync(parsed.value.file))
        return line({
          area: 'store',
          label,
          state: 'warn',
          detail: `${parsed.value.file} does not exist yet (the relay creates it)`,
          fix: null,
        })
      const store = await openRelayStore(parsed.value)
      if (!store.ok)
        return line({ area: 'store', label, state: 'fail', detail: store.error.message, fix: null })
      // Where it is, without a password (the store's own words).
      const shown = store.value.where
      await store.value.close()
      return line({
        area: 'store',
        label,
        state: 'ok',
        detail: `${shown} opens; its schema is current`,
        fix: null,
      })
    }),
  )
}

/** Settings → Doctor: the same checks over the running console's own parts. */
export function doctorApi(
  ctx: AppContext,
  services: Services,
): Pick<ApiHandlers, keyof typeof doctorMethods> {
  return {
    'app.doctor': async () => {
      const checks = await runDoctor({
        dataDir: ctx.dataDir,
        overlayFile: ctx.loadedConfig().overlayFile ?? undefined,
        env: services.env,
        secrets: ctx.secrets,
        payments: () => ok(services.payments),
        consolePort: portOf(ctx.consoleUrl()) ?? 7420,
        own: { consoleUrl: ctx.consoleUrl(), listenerUrl: services.webhooks.address().url },
      })
      return ok({ checks, ok: checks.every((c) => c.state !== 'fail') })
    },
  }
}
