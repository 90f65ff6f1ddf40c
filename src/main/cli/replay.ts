import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline/promises'
import type { EventFilter } from '../../shared/contract/events'
import { maskConfigUrl } from '../../shared/config-secrets'
import { loadConfig, resolveDataDir } from '../config'
import { databaseFileName, openDatabase } from '../db'
import {
  adhocTargetName,
  createDispatcher,
  openForwardStore,
  resolveTargets,
  targetSecrets,
} from '../forward'
import type { ForwardTarget } from '../forward'
import { systemPollClock } from '../../shared/clock'
import { accounts, createKeytarStore, withEnvironmentSecrets } from '../secrets'
import type { SecretStore } from '../secrets'
import { createEventStore, filterClause, signBody } from '../webhooks'
import { parseCommandArgs } from './args'
import { attemptLine } from './attempt-line'
import { cliLogger } from './io'
import type { CliIo } from './io'

export interface ReplayOptions {
  ids: string[]
  types?: string[]
  since?: number
  until?: number
  to?: string
  target?: string
  yes: boolean
  json: boolean
  dataDir: string
  configFile?: string
  secrets?: SecretStore
  /** Asks the operator; null when nobody can answer (not a terminal). */
  confirm?: (question: string) => Promise<boolean | null>
}

const confirmAbove = 100

/** `watchdesk events replay` with already-parsed options; the exit code. */
export async function replay(options: ReplayOptions, io: CliIo): Promise<number> {
  if ((options.to === undefined) === (options.target === undefined))
    return fail(io, 'say where to: --to URL or --target NAME (one of them).', 2)
  if (options.ids.length === 0 && !options.types && options.since === undefined)
    return fail(io, 'say which events: their ids, or --type T --since ISO [--until ISO].', 2)
  const file = join(options.dataDir, databaseFileName)
  if (!existsSync(file))
    return fail(io, `${options.dataDir} holds no database yet: nothing to replay. Pass --data-dir.`, 3)
  const loaded = loadConfig(options.dataDir, options.configFile)
  if (!loaded.ok) return fail(io, loaded.error.message, 3)
  const log = cliLogger(io)
  const secrets = options.secrets ?? withEnvironmentSecrets(createKeytarStore(), io.env)
  const forward = loaded.value.config.forward
  if (options.target && !forward.targets[options.target])
    return fail(
      io,
      `no forward target is named ${options.target} (forward.targets in the config); or use --to URL.`,
      2,
    )
  const db = openDatabase(file)
  if (!db.ok) return fail(io, db.error.message, 3)
  const store = openForwardStore(file)
  try {
    const filter: EventFilter = {
      ...(options.types ? { types: options.types } : {}),
      ...(options.since !== undefined ? { from: options.since } : {}),
      ...(options.until !== undefined ? { to: options.until } : {}),
    }
    const events = createEventStore(db.value)
    const count = options.ids.length > 0 ? options.ids.length : events.count(filter, 1_000_000).count
    if (options.ids.length > 0) {
      const missing = options.ids.filter((id) => events.get(id) === null)
      if (missing.length > 0) return fail(io, `no stored event has the id ${missing.join(', ')}.`, 1)
    }
    if (count === 0) {
      io.err('No stored event matches; nothing replayed.')
      return 0
    }
    const where = options.to ?? options.target!
    if (count > confirmAbove && !options.yes) {
      const answer = options.confirm
        ? await options.confirm(`Replay ${count} events to ${where}? [y/N] `)
        : null
      if (answer === null)
        return fail(io, `${count} events match: pass --yes to replay them all to ${where}.`, 2)
      if (!answer) {
        io.err('Nothing replayed.')
        return 1
      }
    }
    const secretsByName = await targetSecrets(secrets, options.target ? [options.target] : [], log)
    const target: ForwardTarget = resolveTargets(
      { ...forward, targets: options.target ? { [options.target]: forward.targets[options.target]! } : {} },
      options.to ? [{ url: options.to, replayOnly: true }] : [],
      secretsByName,
    )[0]!
    const name = options.to ? adhocTargetName(options.to) : options.target!
    const now = Date.now()
    const ours = new Set(
      options.ids.length > 0
        ? store.enqueueIds(options.ids, name, now)
        : store.enqueueFilter(filterClause(filter), name, now, 1_000_000),
    )
    const queued = ours.size
    io.err(`Replaying ${plural(queued, 'event')} to ${maskConfigUrl(target.url)}…`)
    const webhookSecrets = new Map<string, string>()
    const listed = await secrets.list()
    if (listed.ok)
      for (const e of listed.value)
        if (accounts.isWebhookSecret(e.account)) webhookSecrets.set(accounts.nameOf(e.account), e.secret)
    // The replay's own rows, and the others of the target that go out with them (the target's
    // queue is sent as it becomes due, and a success makes its failing rows due at once).
    const tally = { attempted: new Set<number>(), failed: 0, others: 0, othersFailed: 0 }
    const dispatcher = createDispatcher({
      store,
      clock: systemPollClock,
      log,
      owner: `replay-${process.pid}`,
      maxAgeMs: () => forward.maxAgeHours * 3_600_000,
      originalSignature: (endpoint, body) => {
        const secret = endpoint ? webhookSecrets.get(endpoint) : undefined
        return secret ? signBody(secret, body) : null
      },
      onAttempt: (a) => {
        const delivered = a.state === 'delivered'
        if (ours.has(a.outboxId)) {
          tally.attempted.add(a.outboxId)
          if (!delivered) tally.failed++
        } else {
          tally.others++
          if (!delivered) tally.othersFailed++
        }
        io.out(attemptLine(a, options.json, { retries: false }))
      },
    })
    dispatcher.setTargets([target])
    // Each replayed event is tried once here; what fails stays queued (state failing).
    // (A running serve/listen with the same target may take some: stop once none is left untried.)
    const untried = () => {
      const c = store.openCounts().get(name)
      return c ? c.pending - c.failing : 0
    }
    while (tally.attempted.size < queued && (untried() > 0 || dispatcher.busy() > 0))
      await new Promise((resolve) => setTimeout(resolve, 20))
    await dispatcher.stop()
    const failed = tally.failed
    io.err(
      (failed === 0
        ? `Replayed ${plural(queued, 'event')}: ${queued === 1 ? 'delivered' : 'all delivered'}.`
        : `Replayed ${plural(queued, 'event')}: ${queued - failed} delivered, ${failed} failed and stay${failed === 1 ? 's' : ''} queued for ${name}.`) +
        (tally.others === 0
          ? ''
          : ` ${plural(tally.others, 'other queued event')} of ${name} went out with ${queued === 1 ? 'it' : 'them'}: ${tally.others - tally.othersFailed} delivered${tally.othersFailed > 0 ? `, ${tally.othersFailed} failed` : ''}.`),
    )
    return failed === 0 ? 0 : 1
  } finally {
    store.close()
    db.value.close()
  }
}

/** Parses `events replay` argv into ReplayOptions. */
export async function replayCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseCommandArgs(argv, {
    to: { type: 'string' },
    target: { type: 'string' },
    type: { type: 'string', multiple: true },
    since: { type: 'string' },
    until: { type: 'string' },
    yes: { type: 'boolean', default: false },
  })
  if (!args.ok) return fail(io, args.error.message, 2)
  const v = args.value.values
  const time = (flag: 'since' | 'until'): number | undefined | null => {
    if (v[flag] === undefined) return undefined
    const ms = Date.parse(v[flag] as string)
    return Number.isFinite(ms) ? ms : null
  }
  const since = time('since')
  const until = time('until')
  if (since === null || until === null)
    return fail(io, '--since and --until take an ISO time (2026-11-20T10:00:00Z).', 2)
  const types = (v.type as string[] | undefined)?.flatMap((t) => t.split(',')).filter(Boolean)
  return replay(
    {
      ids: args.value.positionals,
      types,
      since,
      until,
      to: v.to as string | undefined,
      target: v.target as string | undefined,
      yes: v.yes === true,
      json: v.json === true,
      dataDir: resolveDataDir(v['data-dir'] as string | undefined, io.env),
      configFile: v.config as string | undefined,
      confirm: process.stdin.isTTY ? askTerminal : undefined,
    },
    io,
  )
}

async function askTerminal(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr })
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim())
  } finally {
    rl.close()
  }
}

const plural = (n: number, noun: string) => `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`

function fail(io: CliIo, message: string, code: number): number {
  io.err(`watchdesk events replay: ${message}`)
  return code
}
