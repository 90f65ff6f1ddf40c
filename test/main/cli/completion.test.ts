import { execFileSync, spawnSync } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { chainRegistry } from '../../../src/shared/chains/registry'
import { cliPath, repoRoot, runCli } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'

/** `watchdesk completion bash|zsh|fish`: the scripts installed with the lines docs/cli.md gives
 * (as a user without root where the machine allows), then one table of cases asked of each real
 * shell the way TAB asks it: bash through bash-completion's loader, zsh through compinit in a new
 * interactive shell (zpty), fish through `complete -C`. */

const chainIds = chainRegistry.map((c) => String(c.serviceId))

/** The line typed so far (completed at its end) and the candidates every shell must offer. In the
 * working folder: a.backup, notes.txt and the folder sub. */
const cases: [line: string, expected: string[]][] = [
  ['watchdesk alerts channel set ops --type ', ['webhook', 'slack', 'email']],
  ['watchdesk relay token create t --scope ', ['read', 'metrics', 'admin']],
  ['watchdesk chains --chain ', chainIds],
  // --chain takes several ids, as commander does.
  ['watchdesk chains --chain 1 1', chainIds.filter((id) => id.startsWith('1'))],
  ['watchdesk backup ', ['a.backup', 'notes.txt', 'sub']],
  ['watchdesk restore a', ['a.backup']],
  ['watchdesk relay --tls-cert n', ['notes.txt']],
  ['watchdesk events --data-dir ', ['sub']],
  ['watchdesk --log-format ', ['json', 'text']],
  ['watchdesk relay migrate --st', ['--store']],
  ['watchdesk relay token create --s', ['--scope', '--store']],
  ['watchdesk relay token list --store ', ['sqlite:', 'postgres://']],
  ['watchdesk events --type fund', ['funding.initiated', 'funding.completed', 'funding.failed']],
  // --type takes several; a flag after its values is completed as a flag again.
  ['watchdesk events --type funding.completed --li', ['--limit']],
  ['watchdesk send-test-event payout.c', ['payout.completed']],
  ['watchdesk ev', ['events']],
  ['watchdesk relay token ', ['create', 'list', 'revoke']],
  ['watchdesk completion ', ['bash', 'zsh', 'fish']],
  ['watchdesk openapi ', ['console', 'relay']],
  // Free text (a number): nothing, not the folder's files.
  ['watchdesk events --limit ', []],
  ['watchdesk nothing-like-this ', []],
]

/** Ends each case's candidates in the output of a shell that completes every case in turn. */
const separator = '--end-of-candidates--'

/** The candidates of each line, from output where each case's end with the separator line. */
function byLine(lines: string[], out: string, candidate: (l: string) => string): Map<string, string[]> {
  const parts = out.split(`${separator}\n`)
  expect(parts.at(-1), 'nothing after the last case').toBe('')
  expect(parts.length - 1, out).toBe(lines.length)
  return new Map(lines.map((line, i) => [line, parts[i]!.split('\n').filter(Boolean).map(candidate)]))
}

const sorted = (list: string[]) => [...new Set(list.map((c) => c.replace(/\/$/, '')))].sort()

describe('shell completion scripts, installed as docs/cli.md says', () => {
  const tempDir = useTempDir('watchdesk-completion-', { per: 'file' })
  let home = ''
  let work = ''
  let bin = ''

  beforeAll(() => {
    home = tempDir()
    work = tempDir()
    bin = tempDir()
    writeFileSync(join(work, 'a.backup'), '')
    writeFileSync(join(work, 'notes.txt'), '')
    mkdirSync(join(work, 'sub'))
    // fish loads a command's completions only for a command it finds on PATH.
    symlinkSync(cliPath, join(bin, 'watchdesk'))
    installAsUser(home, bin)
  }, 180_000)

  const env = () => ({ HOME: home, PATH: `${bin}:${process.env.PATH}`, TERM: 'dumb', LANG: 'C.UTF-8' })

  /** Every case's candidates from one bash (bash-completion sourced once, the script loaded at
   * the first TAB as bash-completion loads it, then each line completed in turn, as TABs in one
   * shell are): a shell per case cost 0.04 CPU-s each and showed nothing more. */
  let bashAnswers: Map<string, string[]> | undefined
  function bash(line: string): string[] {
    bashAnswers ??= bashAll(cases.map(([l]) => l))
    return bashAnswers.get(line)!
  }

  function bashAll(lines: string[]): Map<string, string[]> {
    const script = `
source /usr/share/bash-completion/bash_completion
_completion_loader watchdesk
spec=$(complete -p watchdesk) || exit 3
func=\${spec#*-F }; func=\${func%% *}
for COMP_LINE in "$@"; do
  COMP_POINT=\${#COMP_LINE}
  read -ra COMP_WORDS <<< "$COMP_LINE"; [[ $COMP_LINE == *' ' ]] && COMP_WORDS+=("")
  COMP_CWORD=$((\${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  "$func" watchdesk "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
  printf '%s\\n' "\${COMPREPLY[@]}" ${separator}
done`
    const out = execFileSync('bash', ['--norc', '--noprofile', '-c', script, 'bash', ...lines], {
      cwd: work,
      env: env(),
      encoding: 'utf8',
    })
    return byLine(lines, out, (l) => l)
  }

  function zsh(line: string): string[] {
    const capture = join(import.meta.dirname, 'zsh-capture.zsh')
    const result = spawnSync('zsh', ['-f', capture, join(home, '.zfunc'), line], {
      cwd: work,
      env: env(),
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(result.status, result.stderr).toBe(0)
    return result.stdout.split('\n').filter(Boolean)
  }

  /** Every case's candidates from one fish (`complete -C` per line in turn). */
  let fishAnswers: Map<string, string[]> | undefined
  function fish(line: string): string[] {
    fishAnswers ??= byLine(
      cases.map(([l]) => l),
      execFileSync(
        'fish',
        ['-c', `for line in $argv; complete -C $line; echo ${separator}; end`, ...cases.map(([l]) => l)],
        { cwd: work, env: env(), encoding: 'utf8' },
      ),
      (l) => l.split('\t')[0]!,
    )
    return fishAnswers.get(line)!
  }

  it('the install lines of docs/cli.md write the three scripts into the user’s own folders', () => {
    for (const file of [
      '.local/share/bash-completion/completions/watchdesk',
      '.zfunc/_watchdesk',
      '.config/fish/completions/watchdesk.fish',
    ])
      expect(readFileSync(join(home, file), 'utf8')).toContain('generated by `watchdesk completion')
  })

  it.each(cases)('bash (bash-completion) completes "%s"', (line, expected) => {
    expect(sorted(bash(line))).toEqual(sorted(expected))
  })

  it.each(cases)('zsh (compinit, the first TAB of a new shell) completes "%s"', (line, expected) => {
    expect(sorted(zsh(line))).toEqual(sorted(expected))
  })

  it.each(cases)('fish completes "%s"', (line, expected) => {
    expect(sorted(fish(line))).toEqual(sorted(expected))
  })

  it('refuses a shell it has no script for, as a usage error', async () => {
    const { code, stderr } = await runCli(['completion', 'powershell'])
    expect(code).toBe(2)
    expect(stderr).toContain('bash, zsh, fish')
  })
})

/** Runs the sh block of docs/cli.md that installs the scripts, as written, in the watchdesk folder
 * with HOME at `home`: as the user nobody when this runs as root (with a copy of this Node, since
 * root's home is closed to others), so a line that needs root fails here. */
function installAsUser(home: string, bin: string): void {
  const docs = readFileSync(join(repoRoot, 'docs', 'cli.md'), 'utf8')
  const block = [...docs.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .find((b) => b.includes('completion zsh'))
  expect(block, 'docs/cli.md has the install block').toBeDefined()
  const asRoot = process.getuid?.() === 0 && existsSync('/usr/sbin/runuser')
  const nodeDir = join(bin, 'node')
  mkdirSync(nodeDir)
  // A hard link where the file system allows (a copy of the ~120 MB binary otherwise).
  try {
    linkSync(realpathSync(process.execPath), join(nodeDir, 'node'))
  } catch {
    copyFileSync(process.execPath, join(nodeDir, 'node'))
  }
  chmodSync(nodeDir, 0o755)
  const env = ['env', `HOME=${home}`, `PATH=${nodeDir}:/usr/bin:/bin`]
  if (asRoot) {
    chmodSync(home, 0o777)
    chmodSync(bin, 0o755)
  }
  const command = asRoot ? ['runuser', '-u', 'nobody', '--', ...env] : env
  const result = spawnSync(command[0]!, [...command.slice(1), 'bash', '-euo', 'pipefail', '-c', block!], {
    cwd: repoRoot,
    encoding: 'utf8',
  })
  expect(result.stderr).toBe('')
  expect(result.status).toBe(0)
}
