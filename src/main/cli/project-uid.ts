import type { Command } from 'commander'
import { maskSecret } from '../../shared/mask'
import { accounts, createKeytarStore, withEnvironmentSecrets } from '../secrets'
import { redactFromLogs } from '../log'
import type { CliContext } from './common'
import { example, withCommon } from './common'
import { exitCodes, failWith, failure } from './exit'
import { readSecretFromTerminal } from './payments-common'

export function registerProjectUid(program: Command, ctx: CliContext): void {
  const projectUid = program
    .command('project-uid')
    .description(
      'The node-access project uid (part of every RPC URL), kept in the OS keychain as "project-uid".',
    )
  example(projectUid, 'printf %s "$UID" | watchdesk project-uid set')

  const set = withCommon(projectUid.command('set'), { json: false })
    .description(
      'Store the project uid, read from stdin or a hidden prompt, never from the command line (arguments are visible in ps).',
    )
    .argument('[uid]', 'refused: pipe the uid instead')
    .action(async (uid: string | undefined) => {
      const { io, deps } = ctx
      if (uid !== undefined)
        return ctx.exit(
          failure(
            io,
            'project-uid',
            'project-uid set takes the uid on stdin, not as an argument (arguments are visible in ps and shell history). Pipe it: printf %s "$UID" | watchdesk project-uid set',
            exitCodes.usage,
          ),
        )
      let value: string
      try {
        value = (await (deps.readSecret ?? readSecretFromTerminal)('Project uid (input hidden): ')).trim()
      } catch {
        io.err('Cancelled')
        return ctx.exit(exitCodes.problem)
      }
      if (!value)
        return ctx.exit(
          failure(io, 'project-uid', 'No project uid arrived on stdin; nothing was stored.', exitCodes.usage),
        )
      if (/\s|\//.test(value))
        return ctx.exit(
          failure(
            io,
            'project-uid',
            'A project uid has no spaces or slashes; nothing was stored.',
            exitCodes.usage,
          ),
        )
      redactFromLogs(value)
      const secrets = deps.secrets ?? withEnvironmentSecrets(createKeytarStore(), io.env)
      const stored = await secrets.set(accounts.projectUid, value)
      if (!stored.ok) return ctx.exit(failWith(io, 'project-uid', stored.error))
      io.out(
        `stored the project uid (${maskSecret(value)}) in the OS keychain as ${accounts.projectUid}; a running console uses it from its next poll round`,
      )
      ctx.exit(exitCodes.ok)
    })
  example(set, 'printf %s "$UID" | watchdesk project-uid set', 'watchdesk project-uid set   (then paste)')
}
