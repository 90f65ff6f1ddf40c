import { validPrefixesSentence } from '../../shared/payments'
import { parseCommandArgs } from './args'
import type { CliIo } from './io'
import { paymentsFor, readSecretFromTerminal } from './payments-common'
import { formatTable } from './io'
import type { PaymentsCliDeps } from './payments-common'

export const keysUsage = `watchdesk keys set NAME [--activate] | keys list [--json] | keys select NAME | keys remove NAME
  API keys live only in the OS keychain (account api-key:NAME). "keys set" reads the key from stdin
  or a hidden prompt, never from the command line (arguments are visible to every user in ps):
    printf %s "$KEY" | watchdesk keys set main      or      watchdesk keys set main   (then paste)
  ${validPrefixesSentence} Output shows keys masked (sk_live_…9f3a). WATCHDESK_API_KEY, when set, is the key "env".`

export async function keysCommand(argv: string[], io: CliIo, deps: PaymentsCliDeps = {}): Promise<number> {
  const args = parseCommandArgs(argv, { activate: { type: 'boolean', default: false } })
  if (!args.ok) return fail(io, args.error.message)
  const [action, name, ...extra] = args.value.positionals
  const service = paymentsFor(args.value, io, deps)
  if (!service.ok) return fail(io, service.error.message)
  const payments = service.value

  switch (action) {
    case 'list': {
      const status = await payments.status()
      if (!status.ok) return fail(io, status.error.message)
      const { keys, keychain } = status.value
      if (args.value.values.json) {
        io.out(JSON.stringify({ keys, keychain }, null, 2))
        return keychain.reachable ? 0 : 1
      }
      if (!keychain.reachable) io.err(`watchdesk keys: ${keychain.message}`)
      if (keys.length === 0) {
        io.out('No API keys stored. Add one with: watchdesk keys set NAME   (the key is read from stdin)')
        return keychain.reachable ? 0 : 1
      }
      const rows = keys.map((k) => [
        k.active ? '*' : '',
        k.name,
        k.masked,
        k.kind ?? 'invalid',
        k.source,
        k.plan ? `${k.plan}${k.planInferred ? ' (inferred)' : ''}` : '—',
        k.perMinute === null ? '—' : String(k.perMinute),
        k.perSecond === null ? '—' : String(k.perSecond),
      ])
      io.out(alignedKeys(rows))
      return keychain.reachable ? 0 : 1
    }
    case 'set': {
      if (!name) return fail(io, 'keys set needs a NAME, e.g. "watchdesk keys set main".')
      if (extra.length > 0) {
        return fail(
          io,
          'keys set takes the key on stdin, not as an argument (arguments are visible in ps and shell history). Pipe it: printf %s "$KEY" | watchdesk keys set NAME',
        )
      }
      let secret: string
      try {
        secret = await (deps.readSecret ?? readSecretFromTerminal)(`API key for "${name}" (input hidden): `)
      } catch {
        return fail(io, 'cancelled; nothing was stored.')
      }
      if (!secret)
        return fail(io, 'No key arrived on stdin; nothing was stored. Pipe the key or type it at the prompt.')
      const stored = await payments.setKey(name, secret, args.value.values.activate === true)
      if (!stored.ok) return fail(io, stored.error.message)
      const k = stored.value
      io.out(
        `stored ${k.kind} key "${k.name}" (${k.masked}) in the OS keychain as api-key:${k.name}${k.active ? '; it is the active key' : ''}`,
      )
      if (k.kind === 'live') io.out('This is a LIVE key: writes move real funds and ask for confirmation.')
      return 0
    }
    case 'select': {
      if (!name) return fail(io, 'keys select needs a NAME.')
      const selected = await payments.selectKey(name)
      if (!selected.ok) return fail(io, selected.error.message)
      io.out(`the active key is now "${name}"`)
      return 0
    }
    case 'remove': {
      if (!name) return fail(io, 'keys remove needs a NAME.')
      const removed = await payments.removeKey(name)
      if (!removed.ok) return fail(io, removed.error.message)
      io.out(`removed the key "${name}" from the OS keychain`)
      return 0
    }
    default:
      return fail(io, `unknown action "${action ?? ''}".\n\n${keysUsage}`, 2)
  }
}

function alignedKeys(rows: string[][]): string {
  const headers = ['', 'name', 'key', 'kind', 'source', 'plan', 'per min', 'per s']
  return formatTable(headers, rows, [false, false, false, false, false, false, true, true])
}

function fail(io: CliIo, message: string, code = 1): number {
  io.err(`watchdesk keys: ${message}`)
  return code
}
