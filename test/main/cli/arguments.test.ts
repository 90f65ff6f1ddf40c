import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { openDatabase, databaseFileName } from '../../../src/main/db'
import { main } from '../../../src/main/cli/main'
import type { CliIo } from '../../../src/main/cli/io'
import { createMemoryStore } from '../../../src/main/secrets'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'

/** Commands that answer at once from the data dir, the config or the keychain (nothing that
 * serves, follows, polls chains or calls the network), run in this process through the same
 * entry as bin/watchdesk. */
const commands = [
  [],
  ['events'],
  ['events', 'replay'],
  ['config', 'get'],
  ['config', 'set'],
  ['config', 'unset'],
  ['config', 'keys'],
  ['keys', 'list'],
  ['keys', 'select'],
  ['keys', 'set'],
  ['keys', 'remove'],
  ['alerts', 'channel', 'list'],
  ['alerts', 'channel', 'set'],
  ['alerts', 'channel', 'remove'],
  ['project-uid'],
  ['completion'],
  ['openapi'],
  ['storage'],
]
const flags = [
  '--json',
  '--type',
  '--limit',
  '--since',
  '--to',
  '--yes',
  '--url',
  '--env',
  '--help',
  '-h',
  '--',
  '-x',
]

/** Names and values in any Unicode (controls, lone surrogates, huge), flags they belong to or not. */
const argument = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', minLength: 2000, maxLength: 5000 }),
  fc.constantFrom(...flags),
  fc.string({ unit: 'binary', maxLength: 20 }).map((s) => `--${s}`),
  fc.integer().map(String),
)

const stackTrace = /\n\s+at .+:\d+:\d+/

describe('the command line and any arguments', () => {
  const tempDir = useTempDir('watchdesk-cli-args-')

  it('exits 0, 1, 2 or 3 with a sentence on stderr when not 0, never a stack trace or a throw', async () => {
    const dir = tempDir()
    unwrap(openDatabase(join(dir, databaseFileName))).close()
    const secrets = createMemoryStore()
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...commands),
        fc.array(argument, { maxLength: 5 }),
        async (command, args) => {
          const out: string[] = []
          const err: string[] = []
          const io: CliIo = {
            out: (l) => out.push(l),
            err: (l) => err.push(l),
            env: { WATCHDESK_DATA_DIR: dir },
          }
          // The data dir comes last, so no generated --data-dir can point elsewhere.
          const code = await main([...command, ...args, '--data-dir', dir], io, {
            secrets,
            readSecret: () => Promise.resolve('a-secret-value-0123456789'),
            confirm: () => Promise.resolve(null),
          })
          const said = [...out, ...err].join('\n')
          expect([0, 1, 2, 3]).toContain(code)
          if (code !== 0) expect(err.join('\n')).toMatch(/\w{2,}.*\w{2,}/s)
          expect(said).not.toMatch(stackTrace)
        },
      ),
      { numRuns: 300 },
    )
  }, 120_000)
})
