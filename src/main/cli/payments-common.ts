import { createInterface } from 'node:readline'
import { Option } from 'commander'
import type { Command } from 'commander'
import { standalonePayments } from '../payments'
import type { PaymentsService } from '../payments'
import type { Result } from '../../shared/result'
import type { CliDeps, CommonOptions } from './common'
import { dataDirOf } from './common'
import { cliLogger } from './io'
import type { CliIo } from './io'

export interface PaymentsOptions extends CommonOptions {
  business?: string
}

/** `--business biz_…` on every payments command: over selectedBusinessId and WATCHDESK_BUSINESS_ID. */
export function withBusiness(command: Command): Command {
  return command.addOption(
    new Option('--business <id>', 'the business (biz_…) to act for, over selectedBusinessId'),
  )
}

export function paymentsFor(options: PaymentsOptions, io: CliIo, deps: CliDeps): Result<PaymentsService> {
  return standalonePayments({
    dataDir: dataDirOf(options, io),
    configFile: options.config,
    env: options.business ? { ...io.env, WATCHDESK_BUSINESS_ID: options.business } : io.env,
    secrets: deps.secrets,
    log: cliLogger(io),
  })
}

/** With a live key every line of a human-readable answer says LIVE (a table in its header), so a
 * screenshot or a pasted log cannot be mistaken for sandbox output. JSON stays JSON: the mark goes
 * to stderr once. */
export function liveMarked(io: CliIo, live: boolean, json: boolean | undefined): CliIo {
  if (!live) return io
  if (json) {
    io.err('LIVE key in use: the output is from the live service.')
    return io
  }
  return {
    ...io,
    out: (text) =>
      io.out(
        text
          .split('\n')
          .map((l) => `LIVE  ${l}`)
          .join('\n'),
      ),
  }
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

/** Asks on the terminal, or reads one answer line from stdin when it is piped (`yes n | …`);
 * null when stdin ends without an answer (nobody to ask: pass --yes). */
export async function confirmOnTerminal(question: string): Promise<boolean | null> {
  process.stderr.write(`${question} [y/N] `)
  const lines = createInterface({ input: process.stdin, terminal: false })
  try {
    for await (const line of lines) {
      if (!process.stdin.isTTY) process.stderr.write('\n')
      return /^y(es)?$/i.test(line.trim())
    }
    process.stderr.write('\n')
    return null
  } finally {
    lines.close()
    process.stdin.pause()
  }
}
