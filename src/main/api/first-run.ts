import { createServer } from 'node:net'
import type { FirstRunCheck as Check } from '../../shared/contract/app'
import type { AppContext } from '../context'
import type { ListenerAddress } from '../webhooks'
import { accounts } from '../secrets/accounts'
import { headlessKeychainLines } from '../secrets/headless'

/** A check as each function writes it; `blockedBy` is null unless it says so. */
type FirstRunCheck = Omit<Check, 'blockedBy'> & { blockedBy?: Check['blockedBy'] }
const withBlocked = (c: FirstRunCheck): Check => ({ ...c, blockedBy: c.blockedBy ?? null })

type Ctx = Pick<AppContext, 'secrets' | 'config' | 'log'> & {
  /** The webhook listener's address, or why it does not listen (asked of the listener). */
  listener(): ListenerAddress
}

/** The first-run checklist, from the context only: each check names what it found and, when
 * something is missing, the fix. Secrets are looked up, never returned. It reads several
 * capabilities (secrets, the listener, the config), so it lives here where they meet. */
export async function firstRunChecks(ctx: Ctx): Promise<Check[]> {
  const [keychain, listener, nodeAccess, apiKey] = await Promise.all([
    keychainCheck(ctx),
    listenerCheck(ctx),
    nodeAccessCheck(ctx),
    apiKeyCheck(ctx),
  ])
  return [keychain, listener, nodeAccess, apiKey].map(withBlocked)
}

/** An item that cannot be checked while the keychain is unreachable: the cause is written once,
 * on the keychain's item, and this one says what blocks it. */
const blockedByKeychain = (id: Check['id'], label: string): FirstRunCheck => ({
  id,
  label,
  state: 'missing',
  detail: 'blocked by: keychain',
  fix: null,
  blockedBy: 'keychain',
})

async function keychainCheck(ctx: Ctx): Promise<FirstRunCheck> {
  const status = await ctx.secrets.status()
  const label = 'OS keychain reachable'
  if (status.reachable) return { id: 'keychain', label, state: 'ok', detail: status.message, fix: null }
  if (status.backend === 'environment')
    return { id: 'keychain', label, state: 'warn', detail: status.message, fix: null }
  return {
    id: 'keychain',
    label,
    state: 'missing',
    detail: status.message,
    fix:
      process.platform === 'linux' && !process.env.DBUS_SESSION_BUS_ADDRESS
        ? `Without a desktop session, start a bus and unlock a keyring in the shell that starts watchdesk, then restart it:\n${headlessKeychainLines(process.env).join('\n')}\n(watchdesk doctor checks every part.) On a server, set the WATCHDESK_* environment variables instead.`
        : 'Start and unlock your keychain: on Linux gnome-keyring or KeePassXC’s Secret Service on the session D-Bus (watchdesk doctor checks every part); on a server set the WATCHDESK_* environment variables instead.',
  }
}

async function listenerCheck(ctx: Ctx): Promise<FirstRunCheck> {
  const label = 'Webhook listener port'
  const { url, problem } = ctx.listener()
  if (url)
    return {
      id: 'listener',
      label,
      state: 'ok',
      detail: `listening on ${url}/webhooks`,
      fix: null,
    }
  if (problem) {
    // What the listener itself met when it tried to start (the port it tried, --listener-port included).
    const lookup = `\`ss -ltnp 'sport = :${problem.port}'\` on Linux, \`lsof -i :${problem.port}\` on macOS`
    return {
      id: 'listener',
      label,
      state: 'missing',
      detail: `${problem.cause} Webhooks are not received until the listener runs.`,
      fix: problem.inUse ? `${problem.fix} To see which program holds it: ${lookup}.` : problem.fix,
    }
  }
  const { host, port } = ctx.config().listener
  const free = await portIsFree(host, port)
  if (free) {
    return {
      id: 'listener',
      label,
      state: 'missing',
      detail: `The listener is not running, so webhooks are not received; ${host}:${port} is free.`,
      fix: `Restart watchdesk to start the listener; ${whereTheLogIs(ctx)} says why it stopped.`,
    }
  }
  return {
    id: 'listener',
    label,
    state: 'missing',
    detail: `${host}:${port} is in use by another program, so webhooks cannot be received.`,
    fix: `Stop the program using port ${port} (\`ss -ltnp 'sport = :${port}'\` on Linux, \`lsof -i :${port}\` on macOS), or set listener.port in Settings and restart.`,
  }
}

async function nodeAccessCheck(ctx: Ctx): Promise<FirstRunCheck> {
  const label = 'Node access configured'
  const base = ctx.config().rpcBaseUrl
  const uid = await ctx.secrets.get(accounts.projectUid)
  const missing: string[] = []
  const fixes: string[] = []
  if (!base) {
    missing.push('no rpcBaseUrl')
    fixes.push('set rpcBaseUrl in Settings (or config.json)')
  }
  if (!uid.ok) return blockedByKeychain('node-access', label)
  if (!uid.value) {
    missing.push('no project uid')
    fixes.push('store the project uid in the keychain (account "project-uid") or set WATCHDESK_PROJECT_UID')
  }
  if (missing.length === 0)
    return {
      id: 'node-access',
      label,
      state: 'ok',
      detail: `rpcBaseUrl ${base} with a project uid`,
      fix: null,
    }
  return {
    id: 'node-access',
    label,
    state: 'missing',
    detail: `Chains cannot be polled: ${missing.join(' and ')}.`,
    fix: capitalise(fixes.join('; ')) + '.',
  }
}

async function apiKeyCheck(ctx: Ctx): Promise<FirstRunCheck> {
  const label = 'API key present'
  const listed = await ctx.secrets.list()
  if (!listed.ok) return blockedByKeychain('api-key', label)
  const keys = listed.value.filter((e) => accounts.isApiKey(e.account)).map((e) => accounts.nameOf(e.account))
  if (keys.length > 0)
    return {
      id: 'api-key',
      label,
      state: 'ok',
      detail: `${keys.length === 1 ? 'key' : 'keys'}: ${keys.join(', ')}`,
      fix: null,
    }
  return {
    id: 'api-key',
    label,
    state: 'missing',
    detail: 'No API key is stored: wallets and webhook endpoints cannot be managed.',
    fix: 'Add your sk_sandbox_ or sk_live_ key: printf %s "$KEY" | watchdesk keys set main (or set WATCHDESK_API_KEY).',
  }
}

/** Names the log file when there is one (the desktop app writes watchdesk.log in the data dir). */
const whereTheLogIs = (ctx: Ctx) => (ctx.log.file ? `the log (${ctx.log.file})` : 'the log (stderr)')

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

/** Binds and releases the port: the only reliable way to know another program holds it. */
export function portIsFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)))
  })
}
