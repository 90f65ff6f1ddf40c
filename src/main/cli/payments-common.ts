import { resolveDataDir } from '../config'
import { createLogger } from '../log'
import { standalonePayments } from '../payments/standalone'
import type { PaymentsService } from '../payments'
import type { SecretStore } from '../secrets'
import type { Result } from '../../shared/result'
import type { ParsedArgs } from './args'
import type { CliIo } from './io'

/** What the payments commands can be handed instead of the real keychain and terminal (tests). */
export interface PaymentsCliDeps {
  secrets?: SecretStore
  /** Reads a secret from stdin (piped) or a prompt with the echo off. */
  readSecret?: (prompt: string) => Promise<string>
  /** Asks a yes/no question on the terminal; null when there is no terminal to ask on. */
  confirm?: (question: string) => Promise<boolean | null>
}

export function paymentsFor(args: ParsedArgs, io: CliIo, deps: PaymentsCliDeps): Result<PaymentsService> {
  return standalonePayments({
    dataDir: resolveDataDir(args.values['data-dir'] as string | undefined, io.env),
    configFile: args.values.config as string | undefined,
    env: io.env,
    secrets: deps.secrets,
    log: createLogger((line) => io.err(line), 'warn'),
  })
}

export async function readSecretFromTerminal(prompt: string): Promise<string> {
  const stdin = process.stdin
  if (!stdin.isTTY) {
    const chunks: Buffer[] = []
    for await (const chunk of stdin) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8').trim()
  }
  process.stderr.write(prompt)
  stdin.setRawMode(true)
  stdin.resume()
  let value = ''
  try {
    for await (const chunk of stdin) {
      for (const ch of (chunk as Buffer).toString('utf8')) {
        if (ch === '\r' || ch === '\n') return value
        if (ch === '\u0003') throw new Error('cancelled')
        if (ch === '\u007f') value = value.slice(0, -1)
        else value += ch
      }
    }
    return value
  } finally {
    stdin.setRawMode(false)
    stdin.pause()
    process.stderr.write('\n')
  }
}

export async function confirmOnTerminal(question: string): Promise<boolean | null> {
  if (!process.stdin.isTTY) return null
  process.stderr.write(`${question} [y/N] `)
  process.stdin.resume()
  const answer = await new Promise<string>((resolve) =>
    process.stdin.once('data', (d: Buffer) => resolve(d.toString('utf8'))),
  )
  process.stdin.pause()
  return /^y(es)?$/i.test(answer.trim())
}
