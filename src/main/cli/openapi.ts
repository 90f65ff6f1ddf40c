import { Argument } from 'commander'
import type { Command } from 'commander'
import { consoleOpenApi, relayOpenApi } from '../../shared/openapi'
import { version } from '../version'
import type { CliContext } from './common'
import { example, withCommon } from './common'
import { exitCodes } from './exit'

const documents = { console: consoleOpenApi, relay: relayOpenApi }

/** `watchdesk openapi console|relay`: the OpenAPI 3.1 document a running console or relay serves
 * at /openapi.json, printed without starting anything (docs/openapi/ is written with it). */
export function registerOpenApi(program: Command, ctx: CliContext): void {
  // --data-dir and --config as on every command (DESIGN.md): taken, and nothing read from them.
  const command = withCommon(program.command('openapi'), { json: false })
    .description(
      'The same document `GET /openapi.json` serves on the console port (console) and on the relay’s sync port (relay), generated from the contract. Feed it to a client generator. --data-dir and --config are taken as on every command; the document does not depend on them.',
    )
    .addArgument(new Argument('<api>', 'console or relay').choices(Object.keys(documents)))
    .action((api: keyof typeof documents) => {
      ctx.io.out(JSON.stringify(documents[api](version), null, 2))
      ctx.exit(exitCodes.ok)
    })
  example(
    command,
    'watchdesk openapi console > console.json && npx openapi-typescript console.json -o api.d.ts',
  )
}
